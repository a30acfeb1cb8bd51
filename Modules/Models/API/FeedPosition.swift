import Foundation

/// Where a device stands in its change feed (api-v1 §6.4, §6.5): the id of the last change it applied, and that
/// change's `created_at` as the server sent it.
///
/// The id alone cannot tell a server's history from one that went back to a backup and was written again: the ids of
/// the new rows run under the device's cursor. The time of the change the cursor names can (`since_created_at`).
/// Also the answer to `GET /api/v1/changes/latest-cursor`: `{"cursor": …, "created_at": …}`, the time absent when
/// no change is kept with that id.
public struct FeedPosition: Sendable, Hashable {
    /// The id of the last change applied; 0 before any.
    public var cursor: Int64
    /// Nil when not known: no change yet, a server that did not send it, or a cursor from an older client.
    public var createdAt: Date?

    /// A position, its time unknown unless given.
    public init(cursor: Int64, createdAt: Date? = nil) {
        self.cursor = cursor
        self.createdAt = createdAt
    }

    /// The query parameter that carries `createdAt` (api-v1 §5.6), and the server feature that reads it (api-v1 §2.1).
    public static let createdAtParameter = "since_created_at"

    /// The header a write carries to say which feed position it was made from (api-v1 §6.7).
    public static let headerName = "Trendy-Feed-Position"

    /// The parameter of the header that carries `createdAt`.
    static let createdAtHeaderParameter = "created_at"

    /// `CURSOR`, or `CURSOR; created_at=RFC3339` when the time is known.
    public var header: String {
        guard let createdAt else { return "\(cursor)" }
        return "\(cursor); \(Self.createdAtHeaderParameter)=\(RFC3339.string(from: createdAt))"
    }

    /// Reads a header value; nil when it is not one `header` writes (a negative cursor included).
    public init?(header: String) {
        let parts = header.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count <= 2, let first = parts.first, let cursor = Int64(first), cursor >= 0 else { return nil }
        var createdAt: Date?
        if parts.count == 2 {
            let pair = parts[1].split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0] == Self.createdAtHeaderParameter, let date = RFC3339.date(from: pair[1])
            else { return nil }
            createdAt = date
        }
        self.init(cursor: cursor, createdAt: createdAt)
    }

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
