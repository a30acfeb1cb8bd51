import Foundation
import Models
import Testing

@Suite("FeedPosition")
struct FeedPositionTests {
    static let seen = Date(millisecondsSince1970: 1_767_225_600_123)

    static func entry(_ id: Int64, at milliseconds: Int64?) -> ChangeEntry {
        ChangeEntry(
            id: id, entityType: "event_type", operation: "create", entityId: "e\(id)", userId: "u", data: nil,
            createdAt: milliseconds.map(Date.init(millisecondsSince1970:)))
    }

    @Test("R10a the position after a page: its last entry with its time; an empty page keeps the time it had")
    func nextPosition() {
        let start = FeedPosition(cursor: 7, createdAt: Self.seen)
        let page = ChangeFeedResponse(
            changes: [Self.entry(8, at: 1_767_225_601_000), Self.entry(9, at: 1_767_225_602_500)], nextCursor: 9,
            hasMore: false)
        #expect(page.nextPosition(after: start) == FeedPosition(cursor: 9, createdAt: page.changes[1].createdAt))
        let empty = ChangeFeedResponse(changes: [], nextCursor: 7, hasMore: false)
        #expect(empty.nextPosition(after: start) == start, "an empty page names the same change")
        let odd = ChangeFeedResponse(changes: [Self.entry(8, at: 1)], nextCursor: 12, hasMore: false)
        #expect(
            odd.nextPosition(after: start) == FeedPosition(cursor: 12), "a cursor naming no entry goes without a time")
    }

    @Test("the query sends since_created_at in RFC 3339 with milliseconds, only when the time is known")
    func query() {
        #expect(FeedPosition(cursor: 5).query.map(\.0) == ["since"])
        let query = FeedPosition(cursor: 5, createdAt: Self.seen).query
        #expect(query.map(\.0) == ["since", "since_created_at"])
        #expect(query.last?.1 == "2026-01-01T00:00:00.123Z")
    }

    @Test("the latest-cursor answer decodes with and without created_at, and encodes the time it holds")
    func latestCursorAnswer() throws {
        let bare = try JSONCoding.decode(FeedPosition.self, from: Data(#"{"cursor":42}"#.utf8))
        #expect(bare == FeedPosition(cursor: 42))
        let timed = try JSONCoding.decode(
            FeedPosition.self, from: Data(#"{"cursor":42,"created_at":"2026-01-01T00:00:00.123Z"}"#.utf8))
        #expect(timed == FeedPosition(cursor: 42, createdAt: Self.seen))
        let encoded = String(decoding: try JSONCoding.encode(timed), as: UTF8.self)
        #expect(encoded.contains(#""created_at":"2026-01-01T00:00:00.123Z""#) && encoded.contains(#""cursor":42"#))
    }
}
