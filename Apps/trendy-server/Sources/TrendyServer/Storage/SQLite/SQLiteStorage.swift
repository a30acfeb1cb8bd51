import Foundation
import GRDB
import GRDBSQLite

/// The embedded backend: a GRDB pool in WAL mode for a file, a queue for `--in-memory`.
///
/// GRDB's single writer serialises every write transaction, so commit order equals change-id order (api-v1 §6.4)
/// for all users at once; `user` needs no lock of its own here.
final class SQLiteStorage: ServerStorage {
    let writer: any DatabaseWriter
    /// Held shared while serving a file, so that `trendy-server restore` refuses to replace it (api-v1 §15).
    private let servingLock: ServingLock?

    /// A file database at `path` (created with its folder), or an in-memory one when `path` is nil.
    init(path: String?) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "trendy-server"
        if let path {
            try CannotOpenDatabase.makeFolder(of: path)
            servingLock = try ServingLock(database: path, exclusive: false)
            do {
                writer = try DatabasePool(path: path, configuration: configuration)
            } catch {
                throw CannotOpenDatabase.opening(path, error)
            }
        } else {
            writer = try DatabaseQueue(configuration: configuration)
            servingLock = nil
        }
        let migrator = SQLiteSchema.migrator
        let unknown = try writer.read { db in try migrator.appliedIdentifiers(db).subtracting(migrator.migrations) }
        if !unknown.isEmpty {
            throw DatabaseTooNew(location: path ?? "in memory", unknownMigrations: unknown.sorted())
        }
        try migrator.migrate(writer)
    }

    /// A read of the file database runs on the calling task: its snapshot never waits for the writer (WAL), and
    /// hopping to a reader's queue and back cost more than a feed page's query. The in-memory queue serialises
    /// reads behind writes, so there a read is awaited on GRDB's queue rather than blocking the caller's thread.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageTransaction) throws -> T) async throws -> T {
        if let pool = writer as? DatabasePool { return try Self.readNow(pool, body) }
        return try await writer.read { db in try body(SQLiteTransaction(db)) }
    }

    /// On GRDB's reader queue, off the event loops: a page of 1000 large events takes tens of milliseconds to build,
    /// which inline would hold every other request of that loop (docs/performance.md, "Large answers").
    func readLarge<T: Sendable>(_ body: @escaping @Sendable (any StorageTransaction) throws -> T) async throws -> T {
        try await writer.read { db in try body(SQLiteTransaction(db)) }
    }

    /// GRDB's blocking read; in a function of its own because an async caller would pick the `async` overload.
    private static func readNow<T>(_ pool: DatabasePool, _ body: (any StorageTransaction) throws -> T) throws -> T {
        try pool.read { db in try body(SQLiteTransaction(db)) }
    }

    func write<T: Sendable>(
        user: String?, claim: String?, _ body: @escaping @Sendable (any StorageTransaction) throws -> T
    ) async throws -> T {
        try await writer.write { db in try body(SQLiteTransaction(db)) }
    }

    /// One process owns the file: every commit goes through this server's pipeline, which rings the streams.
    var sharesCommits: Bool { false }

    func listenForCommits(_ onCommit: @escaping @Sendable (String, Int64?) -> Void) async {}

    func close() async throws {
        try (writer as? DatabasePool)?.close()
        try (writer as? DatabaseQueue)?.close()
        servingLock?.release()
    }
}

/// A transaction on GRDB's connection. Statements come from the connection's cache: each distinct SQL text is
/// parsed and authorised once (preparing a statement runs GRDB's authorizer, which dominated the batch route).
final class SQLiteTransaction: StorageTransaction {
    private let db: Database

    init(_ db: Database) { self.db = db }

    func execute(_ sql: String, _ arguments: [any SQLValueConvertible]) throws {
        try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
    }

    func forEachRow(
        _ sql: String, _ arguments: [any SQLValueConvertible], _ body: (any StorageRow) throws -> Bool
    ) throws {
        let statement = try db.cachedStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: Self.arguments(arguments))
        // GRDB steps the statement; the columns are read from SQLite's own buffers, without a `Row` copy.
        let row = StatementRow(handle: statement.sqliteStatement)
        while try cursor.next() != nil {
            if try !body(row) { break }
        }
    }

    private static func arguments(_ values: [any SQLValueConvertible]) -> StatementArguments {
        StatementArguments(
            values.map { value -> DatabaseValue in
                switch value.sqlValue {
                case .null: .null
                case .integer(let integer): integer.databaseValue
                case .real(let real): real.databaseValue
                case .text(let text): text.databaseValue
                case .blob(let bytes): Data(bytes).databaseValue
                case .bool(let bool): bool.databaseValue
                }
            })
    }
}

/// The current row of a stepped statement, through the SQLite C API.
///
/// Memory safety: SQLite's column buffers stay valid until the statement steps or the column is read as another
/// type; `withText` and `withBytes` hand them to `body` only for the call, and ask for the length after the pointer,
/// as SQLite requires (docs/reliability.md, "The audit").
private struct StatementRow: StorageRow {
    let handle: OpaquePointer

    func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
    func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    func double(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }
    func bool(_ index: Int) -> Bool { sqlite3_column_int64(handle, Int32(index)) != 0 }

    func withText<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let start = sqlite3_column_text(handle, Int32(index))
        return try body(UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, Int32(index)))))
    }

    func withBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let start = sqlite3_column_blob(handle, Int32(index))?.assumingMemoryBound(to: UInt8.self)
        return try body(UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, Int32(index)))))
    }
}
