import Foundation

/// The storage boundary of trendy-server: what the routes need from a database, whichever it is.
///
/// Handlers are synchronous functions of one transaction: they read, check and write in SQL both backends
/// understand (`?` placeholders, `ON CONFLICT`, no engine-specific functions), so the rules of the API have one
/// definition. Each backend decides how a transaction runs: SQLite through GRDB's single writer, PostgreSQL on a
/// connection of its own. docs/server.md, "Storage".
protocol ServerStorage: Sendable {
    /// Runs `body` in a read-only transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageTransaction) throws -> T) async throws -> T
    /// As `read`, for a read that may build a large answer (a page of up to 1000 events, a digest): it runs off the
    /// threads that serve connections, so it never holds other users' requests behind it.
    func readLarge<T: Sendable>(_ body: @escaping @Sendable (any StorageTransaction) throws -> T) async throws -> T
    /// Runs `body` in a write transaction of `user`, committed when it returns and rolled back when it throws.
    /// Writes of one user are serialised, so the change ids they take commit in order (api-v1 §6.4). `claim` (an
    /// idempotency scope) is held for the transaction; when another instance holds it, this throws `ClaimTaken`
    /// before `body` runs. A backend that serves one process only may ignore it (the pipeline's own lock covers).
    func write<T: Sendable>(
        user: String?, claim: String?, _ body: @escaping @Sendable (any StorageTransaction) throws -> T
    ) async throws -> T
    func close() async throws
    /// True when other processes commit to this database (PostgreSQL): their commits reach this instance's change
    /// streams only through `listenForCommits` and the once-a-second re-read.
    var sharesCommits: Bool { get }
    /// Calls `onCommit(user, changeId)` for every commit another instance announces, until cancelled; reconnects
    /// after a failure. Returns at once where no other process writes.
    func listenForCommits(_ onCommit: @escaping @Sendable (String, Int64?) -> Void) async
}

extension ServerStorage {
    /// A backend whose reads already run on threads of their own (PostgreSQL) reads large as it reads small.
    func readLarge<T: Sendable>(_ body: @escaping @Sendable (any StorageTransaction) throws -> T) async throws -> T {
        try await read(body)
    }

    func write<T: Sendable>(
        user: String?, _ body: @escaping @Sendable (any StorageTransaction) throws -> T
    ) async throws -> T {
        try await write(user: user, claim: nil, body)
    }
}

/// Another instance is running a request with the same Idempotency-Key.
struct ClaimTaken: Error {}

/// One row of a result, valid only inside the `forEachRow` call that produced it.
protocol StorageRow {
    func isNull(_ index: Int) -> Bool
    func int64(_ index: Int) -> Int64
    func double(_ index: Int) -> Double
    func bool(_ index: Int) -> Bool
    /// The column's UTF-8 text, without copying it.
    func withText<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result
    /// The column's bytes (a blob, or text), without copying them.
    func withBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result
}

extension StorageRow {
    func decode<Value: StorageDecodable>(_ type: Value.Type, atIndex index: Int) throws -> Value {
        try Value.decode(self, at: index)
    }
}

/// A transaction in progress.
protocol StorageTransaction: AnyObject {
    func execute(_ sql: String, _ arguments: [any SQLValueConvertible]) throws
    /// Steps through the result of `sql`; `body` returns false to stop early.
    func forEachRow(
        _ sql: String, _ arguments: [any SQLValueConvertible], _ body: (any StorageRow) throws -> Bool
    ) throws
}

extension StorageTransaction {
    func execute(sql: String, arguments: [any SQLValueConvertible] = []) throws {
        try execute(sql, arguments)
    }

    func rows<Entity>(
        sql: String, arguments: [any SQLValueConvertible] = [], _ decode: (any StorageRow) throws -> Entity
    ) throws -> [Entity] {
        var entities: [Entity] = []
        try forEachRow(sql, arguments) { row in
            entities.append(try decode(row))
            return true
        }
        return entities
    }

    func row<Entity>(
        sql: String, arguments: [any SQLValueConvertible] = [], _ decode: (any StorageRow) throws -> Entity
    ) throws -> Entity? {
        var entity: Entity?
        try forEachRow(sql, arguments) { row in
            entity = try decode(row)
            return false
        }
        return entity
    }

    /// The first column of the first row; nil when there is no row or the column is NULL.
    func value<Value: StorageDecodable>(
        _ type: Value.Type, sql: String, arguments: [any SQLValueConvertible] = []
    ) throws -> Value? {
        try row(sql: sql, arguments: arguments) { row in row.isNull(0) ? nil : try Value.decode(row, at: 0) } ?? nil
    }

    /// The first column of every row.
    func values<Value: StorageDecodable>(
        _ type: Value.Type, sql: String, arguments: [any SQLValueConvertible] = []
    ) throws -> [Value] {
        try rows(sql: sql, arguments: arguments) { row in try Value.decode(row, at: 0) }
    }
}
