import Foundation
import GRDB
import GRDBSQLite
import Models
import Protocols

/// Direct binding and column reads on a statement GRDB prepared and caches.
///
/// The entity statements run once per row of every pulled page; going through `StatementArguments` and `Row`
/// costs more than the SQLite work itself (see docs/history/performance.md). GRDB still owns the connection, the
/// statement cache and the transaction; this only skips the boxing. Every use starts with a reset, as GRDB's
/// own `execute` does, so the statement is always left reusable.
struct RawStatement {
    private let handle: OpaquePointer
    private var nextIndex: Int32 = 1

    init(_ statement: Statement) {
        handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding, in parameter order

    mutating func bind(_ value: String?) {
        defer { nextIndex += 1 }
        guard let value else {
            sqlite3_bind_null(handle, nextIndex)
            return
        }
        var text = value
        text.withUTF8 { bytes in
            // SQLite copies the bytes before returning (`SQLITE_TRANSIENT`), so the buffer need not outlive the call.
            // A nil pointer would bind NULL, not "": an empty string is bound from a literal instead.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                _ = sqlite3_bind_text(handle, nextIndex, "", 0, Self.transient)
                return
            }
            _ = sqlite3_bind_text(
                handle, nextIndex, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                Self.transient)
        }
    }

    mutating func bind(_ value: Int64?) {
        defer { nextIndex += 1 }
        guard let value else {
            sqlite3_bind_null(handle, nextIndex)
            return
        }
        sqlite3_bind_int64(handle, nextIndex, value)
    }

    mutating func bind(_ value: Int) { bind(Int64(value)) }
    mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }
    mutating func bind(_ value: Date) { bind(value.millisecondsSince1970) }
    mutating func bind(_ value: Date?) { bind(value?.millisecondsSince1970) }

    mutating func bind(_ value: Double?) {
        defer { nextIndex += 1 }
        guard let value else {
            sqlite3_bind_null(handle, nextIndex)
            return
        }
        sqlite3_bind_double(handle, nextIndex, value)
    }

    // MARK: Stepping

    /// Runs the statement to completion (for writes).
    func execute() throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw failure(code) }
    }

    /// Releases the statement's read position (after reading a single row).
    func reset() {
        sqlite3_reset(handle)
    }

    /// Steps to the next row; false when there is none.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(code)
        }
    }

    private func failure(_ code: Int32) -> DataStoreError {
        let message = sqlite3_errmsg(sqlite3_db_handle(handle)).map { String(cString: $0) } ?? "SQLite error \(code)"
        if code == SQLITE_BUSY || code == SQLITE_LOCKED { return .busy(seconds: 5) }
        if code & 0xFF == SQLITE_CORRUPT {
            let file = sqlite3_db_filename(sqlite3_db_handle(handle), "main")
            let path = file.map { String(cString: $0) } ?? "the database"
            return .damaged(path: path, detail: message)
        }
        return .storage(message)
    }

    // MARK: Reading the current row

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's text, copied into a `String` while SQLite's buffer is valid (until the next step or read of the
    /// column); `sqlite3_column_bytes` is asked after `sqlite3_column_text`, as SQLite requires.
    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func bool(_ column: Int32) -> Bool { int64(column) != 0 }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func date(_ column: Int32) -> Date { Date(millisecondsSince1970: int64(column)) }
    func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }

    /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
