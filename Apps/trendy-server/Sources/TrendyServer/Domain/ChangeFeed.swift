import Foundation
import GRDB
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
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, entity_type, operation, entity_id, user_id, data, deleted_at, created_at FROM changes
                    WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?
                    """), arguments: [request.userId, since, limit + 1])
        var text: [UInt8] = []
        text.reserveCapacity(rows.count * 512 + 64)
        text.append(contentsOf: #"{"changes":["#.utf8)
        var last = since
        for (index, row) in rows.prefix(limit).enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            last = try row.decode(Int64.self, atIndex: 0)
            let deletedAt = try row.decode(Int64?.self, atIndex: 6)
            text.append(contentsOf: #"{"created_at":"#.utf8)
            appendString(RFC3339.string(fromMilliseconds: try row.decode(Int64.self, atIndex: 7)), to: &text)
            text.append(contentsOf: #","data":"#.utf8)
            text.append(contentsOf: (try row.decode(String?.self, atIndex: 5) ?? "null").utf8)
            if let deletedAt {
                text.append(contentsOf: #","deleted_at":"#.utf8)
                appendString(RFC3339.string(fromMilliseconds: deletedAt), to: &text)
            }
            text.append(contentsOf: #","entity_id":"#.utf8)
            appendString(try row.decode(String.self, atIndex: 3), to: &text)
            text.append(contentsOf: #","entity_type":"#.utf8)
            appendString(try row.decode(String.self, atIndex: 1), to: &text)
            text.append(contentsOf: #","id":\#(last),"operation":"#.utf8)
            appendString(try row.decode(String.self, atIndex: 2), to: &text)
            text.append(contentsOf: #","user_id":"#.utf8)
            appendString(try row.decode(String.self, atIndex: 4), to: &text)
            text.append(UInt8(ascii: "}"))
        }
        text.append(contentsOf: #"],"has_more":\#(rows.count > limit),"next_cursor":\#(last)}"#.utf8)
        return APIResponse(status: .ok, body: text)
    }

    static func latestCursor(_ request: APIRequest, _ db: Database) throws -> APIResponse {
        let latest =
            try Int64.fetchOne(
                db, sql: "SELECT MAX(id) FROM changes WHERE user_id = ?", arguments: [request.userId]) ?? 0
        return try .json(LatestCursorResponse(cursor: max(latest, try watermark(user: request.userId, db))))
    }

    private static func cursor(_ request: APIRequest) throws(APIError) -> Int64 {
        guard let text = request.query["since"], !text.isEmpty else { return 0 }
        guard let value = Int64(text) else { throw APIError(.badRequest, "since must be an integer cursor") }
        if value < 0 && !request.original { throw APIError(.badRequest, "since must not be negative") }
        return value
    }

    static func watermark(user: String, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT watermark FROM change_watermarks WHERE user_id = ?", arguments: [user]) ?? 0
    }

    /// Deletes rows older than `days` and raises each user's watermark to the largest deleted id (api-v1 §6.5).
    static func prune(olderThan days: Int, now: Int64, _ db: Database) throws {
        let cutoff = now - Int64(days) * 86_400_000
        try db.execute(
            sql: """
                INSERT INTO change_watermarks (user_id, watermark)
                SELECT user_id, MAX(id) FROM changes WHERE created_at < ? GROUP BY user_id
                ON CONFLICT(user_id) DO UPDATE SET watermark = MAX(watermark, excluded.watermark)
                """, arguments: [cutoff])
        try db.execute(sql: "DELETE FROM changes WHERE created_at < ?", arguments: [cutoff])
    }

    private static func appendString(_ value: String, to text: inout [UInt8]) {
        JSONText.write(.string(value), into: &text)
    }
}
