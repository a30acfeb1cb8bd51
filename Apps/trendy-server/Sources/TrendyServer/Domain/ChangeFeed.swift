import Foundation
import GRDB
import GRDBSQLite
import HTTPTypes
import Models

/// `/api/v1/changes` and `/api/v1/changes/latest-cursor` (api-v1 §5.6, §6).
enum ChangeFeed {
    /// One page. Rows are written as text from their stored JSON, without decoding `data`: this is the route
    /// every client polls, so it avoids re-encoding entity snapshots.
    static func page(_ request: APIRequest, _ db: Database) throws -> APIResponse {
        let since = try cursor(request)
        let limit = try Query.integer(request, "limit", default: 100, valid: 1...500, fallback: 100)
        if !request.original, since < (try watermark(user: request.userId, db)) {
            throw APIError(.cursorExpired, "the cursor \(since) is older than the retained change history; bootstrap")
        }
        let statement = try db.cachedStatement(
            sql: """
                SELECT id, entity_type, operation, entity_id, user_id, data, deleted_at, created_at FROM changes
                WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?
                """)
        let rows = try Row.fetchCursor(statement, arguments: [request.userId, since, limit + 1])
        // GRDB steps the statement; the current row's columns are read from SQLite's own buffers (building a
        // `Data` per column through GRDB's row cost more than the query).
        let columns = FeedColumns(handle: statement.sqliteStatement)
        var text: [UInt8] = []
        text.reserveCapacity(limit * 700 + 64)
        text.append(contentsOf: #"{"changes":["#.utf8)
        var last = since
        var count = 0
        var hasMore = false
        while try rows.next() != nil {
            if count == limit {
                hasMore = true
                break
            }
            if count > 0 { text.append(UInt8(ascii: ",")) }
            count += 1
            last = columns.integer(0)
            text.append(contentsOf: #"{"created_at":""#.utf8)
            RFC3339.write(milliseconds: columns.integer(7), into: &text)
            text.append(contentsOf: #"","data":"#.utf8)
            if columns.isNull(5) {
                text.append(contentsOf: "null".utf8)
            } else {
                text.append(contentsOf: columns.bytes(5))
            }
            if !columns.isNull(6) {
                text.append(contentsOf: #","deleted_at":""#.utf8)
                RFC3339.write(milliseconds: columns.integer(6), into: &text)
                text.append(UInt8(ascii: "\""))
            }
            columns.appendMember("entity_id", 3, to: &text)
            columns.appendMember("entity_type", 1, to: &text)
            text.append(contentsOf: #","id":\#(last)"#.utf8)
            columns.appendMember("operation", 2, to: &text)
            columns.appendMember("user_id", 4, to: &text)
            text.append(UInt8(ascii: "}"))
        }
        text.append(contentsOf: #"],"has_more":\#(hasMore),"next_cursor":\#(last)}"#.utf8)
        return APIResponse(status: .ok, body: text)
    }

    /// The current row's columns, through the SQLite C API.
    private struct FeedColumns {
        let handle: OpaquePointer

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
        func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(
                start: sqlite3_column_text(handle, column), count: Int(sqlite3_column_bytes(handle, column)))
        }

        /// Appends `,"name":"<escaped text>"`.
        func appendMember(_ name: String, _ column: Int32, to text: inout [UInt8]) {
            text.append(contentsOf: ",\"\(name)\":".utf8)
            JSONText.writeString(bytes: bytes(column), into: &text)
        }
    }

    static func latestCursor(_ request: APIRequest, _ db: Database) throws -> APIResponse {
        let latest =
            try db.cachedValue(
                Int64.self, sql: "SELECT MAX(id) FROM changes WHERE user_id = ?", arguments: [request.userId]) ?? 0
        return try .json(LatestCursorResponse(cursor: max(latest, try watermark(user: request.userId, db))))
    }

    private static func cursor(_ request: APIRequest) throws(APIError) -> Int64 {
        guard let text = request.query["since"], !text.isEmpty else { return 0 }
        guard let value = Int64(text) else { throw APIError(.badRequest, "since must be an integer cursor") }
        if value < 0 && !request.original { throw APIError(.badRequest, "since must not be negative") }
        return value
    }

    static func watermark(user: String, _ db: Database) throws -> Int64 {
        try db.cachedValue(
            Int64.self, sql: "SELECT watermark FROM change_watermarks WHERE user_id = ?", arguments: [user]) ?? 0
    }

    /// Deletes rows older than `days` and raises each user's watermark to the largest deleted id (api-v1 §6.5).
    static func prune(olderThan days: Int, now: Int64, _ db: Database) throws {
        let cutoff = now - Int64(days) * 86_400_000
        try db.cachedExecute(
            sql: """
                INSERT INTO change_watermarks (user_id, watermark)
                SELECT user_id, MAX(id) FROM changes WHERE created_at < ? GROUP BY user_id
                ON CONFLICT(user_id) DO UPDATE SET watermark = MAX(watermark, excluded.watermark)
                """, arguments: [cutoff])
        try db.cachedExecute(sql: "DELETE FROM changes WHERE created_at < ?", arguments: [cutoff])
    }
}
