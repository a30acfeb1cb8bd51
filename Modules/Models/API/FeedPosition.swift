import Foundation

/// Where a device stands in its change feed (api-v1 §6.4, §6.5): the id of the last change it applied, and that
/// change's `created_at` as the server sent it.
///
/// The id alone cannot tell a server's history from one that went back to a backup and was written again: the ids of
/// the new rows run under the device's cursor. The time of the change the cursor names can (`since_created_at`).
/// Also the answer to `GET /api/v1/changes/latest-cursor`: `{"cursor": …, "created_at": …}`, the time absent when
/// no change is kept with that id.
public struct FeedPosition: Sendable, Hashable {
    public var cursor: Int64
    /// Nil when not known: no change yet, a server that did not send it, or a cursor from an older client.
    public var createdAt: Date?

    public init(cursor: Int64, createdAt: Date? = nil) {
        self.cursor = cursor
        self.createdAt = createdAt
    }

    /// The query parameter that carries `createdAt` (api-v1 §5.6), and the server feature that reads it (§2.1).
    public static let createdAtParameter = "since_created_at"

    /// The query of a request from this position: `since`, and `since_created_at` when the time is known.
    public var query: [(String, String)] {
        [("since", "\(cursor)")] + (createdAt.map { [(Self.createdAtParameter, RFC3339.string(from: $0))] } ?? [])
    }
}

extension FeedPosition: Codable {
    enum CodingKeys: String, CodingKey {
        case cursor
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cursor = try container.decode(Int64.self, forKey: .cursor)
        createdAt = container.decodeTimestampIfPresent(forKey: .createdAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cursor, forKey: .cursor)
        try container.encodeTimestampIfPresent(createdAt, forKey: .createdAt)
    }
}

extension ChangeFeedResponse {
    /// The position after this page, read from `position`: its last entry's id and time, or `position` itself when
    /// the page is empty. A `next_cursor` that names no entry of the page is kept without a time.
    public func nextPosition(after position: FeedPosition) -> FeedPosition {
        if let last = changes.last, last.id == nextCursor {
            return FeedPosition(cursor: last.id, createdAt: last.createdAt)
        }
        return nextCursor == position.cursor ? position : FeedPosition(cursor: nextCursor)
    }
}

extension ChangeEntry {
    /// The position once this entry is applied.
    public var position: FeedPosition { FeedPosition(cursor: id, createdAt: createdAt) }
}
