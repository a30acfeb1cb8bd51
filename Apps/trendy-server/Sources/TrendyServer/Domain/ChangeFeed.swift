import Foundation
import HTTPTypes
import Models

/// `/api/v1/changes` and `/api/v1/changes/latest-cursor` (api-v1 §5.6, §6).
enum ChangeFeed {
    /// One page. Rows are written as text from their stored JSON, without decoding `data` and without copying a
    /// column: this is the route every client polls, so it avoids re-encoding entity snapshots.
    static func page(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let since = try cursor(request)
        let limit = try Query.integer(request, "limit", default: 100, valid: 1...500, fallback: 100)
        let watermark =
            request.dialect.expiresCursors
            ? try checkPosition(
                since, createdAt: try createdAt(request.query[FeedPosition.createdAtParameter]), user: request.userId,
                db) : 0
        var text: [UInt8] = []
        text.reserveCapacity(limit * 700 + 64)
        text.append(contentsOf: #"{"changes":["#.utf8)
        var last = since
        var oldestCreatedAt: Int64?
        var count = 0
        var hasMore = false
        try db.forEachRow(
            ChangeEntryText.select + " WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?",
            [request.userId, since, limit + 1]
        ) { row in
            if count == limit {
                hasMore = true
                return false
            }
            let mark = text.count
            if count > 0 { text.append(UInt8(ascii: ",")) }
            ChangeEntryText.write(row, into: &text)
            // The page byte cap: the page ends before the entry that would pass it (never before the first).
            if count > 0 && text.count + 64 > request.pageBytes {
                text.removeSubrange(mark...)
                hasMore = true
                return false
            }
            count += 1
            last = ChangeEntryText.id(row)
            if oldestCreatedAt == nil { oldestCreatedAt = ChangeEntryText.createdAt(row) }
            return true
        }
        // Nothing above `since`: either the device is up to date, or `since` is above every change this database
        // holds, because it went back to a backup or was reset. Then the device's state is of a history this
        // server no longer has, and only a bootstrap brings it back (docs/error-recovery.md › Verification, "A server
        // restored from an older backup").
        if count == 0, request.dialect.expiresCursors,
            since > (try latestCursor(user: request.userId, db, watermark: watermark))
        {
            throw APIError.cursorAhead(since)
        }
        text.append(contentsOf: #"],"has_more":\#(hasMore),"next_cursor":\#(last)}"#.utf8)
        var answer = APIResponse(
            status: .ok, body: text, observation: .feedPage(changes: count, oldestCreatedAt: oldestCreatedAt))
        answer.feedRange = FeedRange(cursor: since, served: last)
        return answer
    }

    static func latestCursor(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let cursor = try latestCursor(user: request.userId, db)
        let createdAt = try changeCreatedAt(cursor, user: request.userId, db).map(Date.init(millisecondsSince1970:))
        var answer = try APIResponse.json(FeedPosition(cursor: cursor, createdAt: createdAt))
        answer.feedRange = FeedRange(cursor: nil, served: cursor)
        return answer
    }

    /// When the user's change `id` was written, in milliseconds; nil when no such row is left.
    static func changeCreatedAt(_ id: Int64, user: String, _ db: any StorageTransaction) throws -> Int64? {
        guard id > 0 else { return nil }
        return try db.value(
            Int64.self, sql: "SELECT created_at FROM changes WHERE id = ? AND user_id = ?", arguments: [id, user])
    }

    /// A `since_created_at` value (api-v1 §5.6) in milliseconds: absent or empty is nil.
    static func createdAt(_ text: String?) throws(APIError) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        guard let milliseconds = RFC3339.milliseconds(from: text) else {
            throw APIError(.badRequest, "\(FeedPosition.createdAtParameter) must be an RFC 3339 time")
        }
        return milliseconds
    }

    /// api-v1 §6.5: 410 `cursor_expired` for a `since` this history cannot continue — below the retention watermark,
    /// or, with `createdAt`, naming a change that is gone or was written at another time (the database went back to
    /// a backup, then new rows took the ids again). A change retention deleted (`since` at the watermark) passes; one
    /// compaction deleted does not: compaction keeps the change at every known device's position (api-v1 §6.8), so a
    /// position it removed belongs to a device that expired, or to a history the database lost. Returns the watermark
    /// it read.
    static func checkPosition(
        _ since: Int64, createdAt: Int64?, user: String, _ db: any StorageTransaction
    ) throws -> Int64 {
        let watermark = try watermark(user: user, db)
        if since < watermark {
            throw APIError(.cursorExpired, "the cursor \(since) is older than the retained change history; bootstrap")
        }
        guard let createdAt, since > watermark else { return watermark }
        guard let written = try changeCreatedAt(since, user: user, db) else {
            if since <= (try ChangeCompaction.horizon(user: user, db)) { throw APIError.cursorNotKept(since) }
            throw APIError.cursorMoved(since)
        }
        if written != createdAt { throw APIError.cursorMoved(since) }
        return watermark
    }

    /// api-v1 §6.7: a write sent from `position` (its `Trendy-Feed-Position`) is refused with 410 `cursor_expired`
    /// when this database cannot have served that position: a cursor above every change it holds, or one naming a
    /// change written at another time. A position below the retention watermark passes: retention forgets history,
    /// it does not go back, and the device's write stands on what this server holds. A change compaction deleted
    /// passes only without its time, which nothing can check (api-v1 §6.8).
    static func checkWritePosition(_ position: FeedPosition, user: String, _ db: any StorageTransaction) throws {
        guard position.cursor > 0 else { return }
        let watermark = try watermark(user: user, db)
        guard position.cursor > watermark else { return }
        guard let createdAt = try changeCreatedAt(position.cursor, user: user, db) else {
            guard position.cursor <= (try ChangeCompaction.horizon(user: user, db)) else {
                throw APIError.cursorAhead(position.cursor)
            }
            // Compaction keeps the change at every known device's position (api-v1 §6.8): one it removed is a
            // device's that expired, or a position of a history the database lost.
            if position.createdAt != nil { throw APIError.cursorNotKept(position.cursor) }
            return
        }
        if let expected = position.createdAt?.millisecondsSince1970, expected != createdAt {
            throw APIError.cursorMoved(position.cursor)
        }
    }

    /// The cursor a device holds once it pulled everything: the user's largest change id, or the watermark when
    /// retention deleted every row above it (`watermark` when the caller has read it already).
    static func latestCursor(user: String, _ db: any StorageTransaction, watermark: Int64? = nil) throws -> Int64 {
        let latest = try db.value(Int64.self, sql: "SELECT MAX(id) FROM changes WHERE user_id = ?", arguments: [user])
        return max(latest ?? 0, try watermark ?? self.watermark(user: user, db))
    }

    private static func cursor(_ request: APIRequest) throws(APIError) -> Int64 {
        try cursor(request.query["since"], dialect: request.dialect)
    }

    /// A `since` value (or a `Last-Event-ID`): absent or empty is 0.
    static func cursor(_ text: String?, dialect: Dialect) throws(APIError) -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        guard let value = Int64(text) else { throw APIError(.badRequest, "since must be an integer cursor") }
        if value < 0 && !dialect.acceptsNegativeCursor { throw APIError(.badRequest, "since must not be negative") }
        return value
    }

    static func watermark(user: String, _ db: any StorageTransaction) throws -> Int64 {
        try db.value(
            Int64.self, sql: "SELECT watermark FROM change_watermarks WHERE user_id = ?", arguments: [user]) ?? 0
    }

    /// Deletes rows older than `days` and raises each user's watermark to the largest deleted id (api-v1 §6.5).
    static func prune(olderThan days: Int, now: Int64, _ db: any StorageTransaction) throws {
        let cutoff = now - Int64(days) * 86_400_000
        try db.execute(
            sql: """
                INSERT INTO change_watermarks (user_id, watermark)
                SELECT user_id, MAX(id) FROM changes WHERE created_at < ? GROUP BY user_id
                ON CONFLICT(user_id) DO UPDATE SET watermark = CASE
                    WHEN excluded.watermark > change_watermarks.watermark THEN excluded.watermark
                    ELSE change_watermarks.watermark END
                """, arguments: [cutoff])
        try db.execute(sql: "DELETE FROM changes WHERE created_at < ?", arguments: [cutoff])
        // The give-backs' times of the entries gone with them (api-v1 §15.1): a handful of rows, rarely any.
        try db.execute(sql: "DELETE FROM given_back_changes WHERE change_id NOT IN (SELECT id FROM changes)")
    }
}
