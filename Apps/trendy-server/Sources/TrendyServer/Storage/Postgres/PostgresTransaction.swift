import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A transaction on one PostgreSQL connection, driven from a thread that may block.
///
/// Statements whose results the handler does not read (`execute`: inserts, updates, deletes) are sent without
/// waiting for their answers; PostgreSQL runs a connection's statements in order, so the next statement that is
/// read (or COMMIT) waits for them too, and the first of them that failed is the error thrown. A failed statement
/// aborts a PostgreSQL transaction anyway, so no handler could have gone on after one.
final class PostgresTransaction: StorageTransaction {
    private let connection: PostgresConnection
    private let logger: Logger
    /// Sent and not yet checked, in the order they were sent.
    private var unchecked: [EventLoopFuture<PostgresQueryResult>] = []
    /// Single-row INSERTs not sent yet; they go out as multi-row INSERTs before anything else is sent.
    private var held = PostgresInsertRows()

    private init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// BEGIN, the locks, `body`, COMMIT — or ROLLBACK when anything throws.
    ///
    /// A write of a user first takes that user's transaction-scoped advisory lock: writes of one user run one at a
    /// time, so the change ids they draw from the sequence commit in increasing order and a feed reader can never
    /// see a later id before an earlier one (the gap-free feed, docs/server.md). `claim` is tried, never waited
    /// for, before that lock: a request whose Idempotency-Key another instance is running gets `ClaimTaken`.
    /// `migrating` takes the migration lock instead, which instances starting together queue on. The locks are
    /// awaited without a thread — a writer queued behind others of its user holds only its connection — and only
    /// `body` and COMMIT run on one of `threads`. A read takes no lock and goes to its thread at once; its COMMIT
    /// is sent and not awaited (a read-only transaction has nothing to lose), and the connection's next user
    /// queues behind it.
    static func run<T: Sendable>(
        on connection: PostgresConnection, readOnly: Bool, user: String?, claim: String?, migrating: Bool = false,
        logger: Logger, threads: NIOThreadPool, _ body: @escaping @Sendable (any StorageTransaction) throws -> T
    ) async throws -> T {
        // A read sees one snapshot across its statements (a feed page and its watermark agree).
        let begin = readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN"
        let locked = claim != nil || user != nil || migrating
        do {
            if locked {
                // BEGIN is not awaited on its own: the lock's answer comes after it.
                let began: EventLoopFuture<PostgresQueryResult> = connection.query(
                    PostgresQuery(unsafeSQL: begin), logger: logger)
                if let claim {
                    var claimed = false
                    let rows = try await connection.query(
                        "SELECT pg_try_advisory_xact_lock(hashtextextended(\(claim), 1))", logger: logger)
                    for try await row in rows { claimed = try row.decode(Bool.self) }
                    _ = try await began.get()
                    if !claimed { throw ClaimTaken() }
                }
                if let user {
                    try await connection.query(
                        "SELECT pg_advisory_xact_lock(hashtextextended(\(user), 0))", logger: logger)
                }
                if migrating {
                    try await connection.query(
                        "SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: logger)
                }
                _ = try await began.get()
            }
            return try await threads.runIfActive {
                let transaction = PostgresTransaction(connection: connection, logger: logger)
                if !locked { transaction.unchecked.append(transaction.send(begin, [])) }
                let result = try body(transaction)
                transaction.sendHeld()
                if let user, !readOnly {
                    // Delivered at COMMIT, to every instance's change streams (api-v1 §13).
                    transaction.unchecked.append(transaction.send(Self.notifyCommit, [user, user]))
                }
                let commit = transaction.send("COMMIT", [])
                if readOnly { return result }
                try transaction.settle()
                _ = try commit.wait()
                return result
            }
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// The channel every instance LISTENs on for the commits of others.
    static let commitChannel = "trendy_commits"

    /// NOTIFY with `user change-id`, the user's latest change id as this transaction sees it.
    static let notifyCommit = """
        SELECT pg_notify('\(commitChannel)', ? || ' ' || COALESCE((SELECT MAX(id) FROM changes WHERE user_id = ?), 0))
        """

    func execute(_ sql: String, _ arguments: [any SQLValueConvertible]) throws {
        if held.hold(sql, arguments) {
            if held.isFull { sendHeld() }
        } else {
            sendHeld()
            unchecked.append(send(sql, arguments))
        }
        // Bounded: a long run of writes does not hold every answer.
        if unchecked.count >= 256 { try settle() }
    }

    func forEachRow(
        _ sql: String, _ arguments: [any SQLValueConvertible], _ body: (any StorageRow) throws -> Bool
    ) throws {
        sendHeld()
        let answer = send(sql, arguments)
        try settle()
        let result = try answer.wait()
        for row in result.rows {
            let cells = CellRow(row.makeRandomAccess())
            let more = try body(cells)
            if let mismatch = cells.mismatch { throw mismatch }
            if !more { break }
        }
    }

    /// Waits for every statement sent before; throws the first failure.
    private func settle() throws {
        defer { unchecked.removeAll(keepingCapacity: true) }
        for answer in unchecked { _ = try answer.wait() }
    }

    /// Sends the held INSERTs, unchecked like any other write.
    private func sendHeld() {
        guard !held.isEmpty else { return }
        for statement in held.take() {
            unchecked.append(send(statement.sql, statement.arguments, numbered: true))
        }
    }

    /// `numbered`: the placeholders are PostgreSQL's already (`$1`…), so the text is not translated.
    private func send(
        _ sql: String, _ arguments: [any SQLValueConvertible], numbered: Bool = false
    ) -> EventLoopFuture<PostgresQueryResult> {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.sqlValue {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            case .bool(let bool): bindings.append(bool)
            }
        }
        let text = numbered ? sql : PostgresPlaceholders.translate(sql)
        let statement = PostgresQuery(unsafeSQL: text, binds: bindings)
        return connection.query(statement, logger: logger)
    }

    /// A unique key taken by a concurrent transaction, a serialisation failure or a deadlock: worth a new attempt.
    static func isRetryable(_ error: PSQLError) -> Bool {
        ["23505", "40001", "40P01"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// The server's message and SQLSTATE, or the client's error code.
    static func describe(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
}

/// One row of a result in PostgreSQL's binary format. A column of a type the server's schema never produces there
/// is recorded and thrown by `forEachRow` after the row, so the `StorageRow` readers stay non-throwing.
private final class CellRow: StorageRow {
    private let row: PostgresRandomAccessRow
    private(set) var mismatch: StorageDecodingError?

    init(_ row: PostgresRandomAccessRow) { self.row = row }

    func isNull(_ index: Int) -> Bool { row[index].bytes == nil }

    func int64(_ index: Int) -> Int64 {
        let cell = row[index]
        guard var bytes = cell.bytes else { return 0 }
        switch cell.dataType {
        case .int8: if let value = bytes.readInteger(as: Int64.self) { return value }
        case .int4: if let value = bytes.readInteger(as: Int32.self) { return Int64(value) }
        case .int2: if let value = bytes.readInteger(as: Int16.self) { return Int64(value) }
        case .bool: if let value = bytes.readInteger(as: UInt8.self) { return Int64(value) }
        default: break
        }
        return fail(index, "integer")
    }

    func double(_ index: Int) -> Double {
        let cell = row[index]
        guard var bytes = cell.bytes else { return 0 }
        switch cell.dataType {
        case .float8: if let bits = bytes.readInteger(as: UInt64.self) { return Double(bitPattern: bits) }
        case .float4: if let bits = bytes.readInteger(as: UInt32.self) { return Double(Float(bitPattern: bits)) }
        case .int8, .int4, .int2: return Double(int64(index))
        default: break
        }
        return fail(index, "real")
    }

    func bool(_ index: Int) -> Bool {
        let cell = row[index]
        guard var bytes = cell.bytes else { return false }
        switch cell.dataType {
        case .bool: if let value = bytes.readInteger(as: UInt8.self) { return value != 0 }
        case .int8, .int4, .int2: return int64(index) != 0
        default: break
        }
        return fail(index, "boolean")
    }

    func withText<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withBytes(index, body)
    }

    func withBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        guard let bytes = row[index].bytes else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        // The buffer's readable bytes, valid for the closure; `ByteBuffer` storage is bytes, bound as `UInt8`.
        return try bytes.withUnsafeReadableBytes { raw in try body(raw.assumingMemoryBound(to: UInt8.self)) }
    }

    private func fail<Value: Numeric>(_ index: Int, _ expected: String) -> Value {
        if mismatch == nil {
            mismatch = StorageDecodingError(column: index, expected: "\(expected) (found \(row[index].dataType))")
        }
        return 0
    }

    private func fail(_ index: Int, _ expected: String) -> Bool {
        let _: Int64 = fail(index, expected)
        return false
    }
}

/// `?` and `?N` placeholders (what SQLite and the handlers use) as PostgreSQL's `$N`. Quoted text is left alone.
/// Each distinct statement is translated once.
enum PostgresPlaceholders {
    private static let cache = Mutex<[String: String]>([:])

    static func translate(_ sql: String) -> String {
        if let known = cache.withLock({ $0[sql] }) { return known }
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var next = 1
        var quoted = false
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if character == "'" { quoted.toggle() }
            guard character == "?", !quoted else {
                output.append(character)
                continue
            }
            var digits = ""
            while let digit = pending, digit.isASCII, digit.isNumber {
                digits.append(digit)
                pending = characters.next()
            }
            if digits.isEmpty {
                output += "$\(next)"
                next += 1
            } else {
                output += "$" + digits
            }
        }
        cache.withLock { $0[sql] = output }
        return output
    }
}
