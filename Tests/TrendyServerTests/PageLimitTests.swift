import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

/// No authenticated request can make one answer huge (docs/security.md): listing pages end early
/// at the page byte cap with their sign that more follows, the type and geofence lists are paged like events, and
/// an event's properties are bounded. Every listing still lists every row exactly once. Runs on PostgreSQL too.
@Suite("Page limits")
struct PageLimitTests {
    /// Follows `X-Next-After` from `path` to the last page; returns each page's ids.
    static func pages(_ harness: ServerHarness, _ path: String) async throws -> [[String]] {
        var pages: [[String]] = []
        var next: String? = nil
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let answer = try await harness.send(
                "GET",
                path
                    + (next.map {
                        "\(separator)after=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)"
                    } ?? ""))
            #expect(answer.status == 200, "\(answer.text)")
            pages.append((answer.jsonArray ?? []).compactMap { $0["id"] as? String })
            next = answer.header("X-Next-After")
        } while next != nil && pages.count < 100
        return pages
    }

    @Test("event types and geofences are paged by limit and X-Next-After; unpaged, an ordinary account is one page")
    func typesAndGeofencesPaged() async throws {
        try await ServerHarness.with { harness in
            var types: [String] = []
            for index in 0..<5 { types.append(try await harness.eventType("Type \(index)")) }
            let pages = try await Self.pages(harness, "/api/v1/event-types?limit=2")
            #expect(pages.map(\.count) == [2, 2, 1])
            #expect(pages.flatMap { $0 } == types, "created order, each once")
            let whole = try await harness.send("GET", "/api/v1/event-types")
            #expect(whole.jsonArray?.count == 5 && whole.header("X-Next-After") == nil)
            #expect(try await harness.send("GET", "/api/v1/event-types?after=nonsense").status == 400)

            var fences: [String] = []
            for index in 0..<3 {
                let created = try await harness.send(
                    "POST", "/api/v1/geofences",
                    json:
                        #"{"name": "Fence \#(index)", "latitude": 1, "longitude": 2, "radius": 100, "is_active": \#(index != 1)}"#
                )
                fences.append(try #require(created.json?["id"] as? String))
            }
            let fencePages = try await Self.pages(harness, "/api/v1/geofences?limit=1")
            #expect(fencePages.flatMap { $0 } == fences.reversed(), "newest first, each once")
            let active = try await Self.pages(harness, "/api/v1/geofences?active=true&limit=1")
            #expect(active.flatMap { $0 } == [fences[2], fences[0]])
        }
    }

    @Test("a page ends early at the byte cap, never before its first row, and the listing still has every row once")
    func byteCap() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.maxPageBytes = 3000
        try await ServerHarness.with(configuration) { harness in
            // Each type about 700 bytes: four to a page at most, whatever the limit asked.
            var types: [String] = []
            for index in 0..<9 {
                types.append(try await harness.eventType("T\(index) " + String(repeating: "n", count: 500)))
            }
            let typePages = try await Self.pages(harness, "/api/v1/event-types")
            #expect(typePages.count >= 3 && typePages.allSatisfy { !$0.isEmpty && $0.count <= 4 }, "\(typePages)")
            #expect(typePages.flatMap { $0 } == types)

            // Events with 2 KB of notes: one, rarely two, to a keyset page.
            var events: Set<String> = []
            for index in 0..<5 {
                let id = ServerHarness.newId()
                let created = try await harness.send(
                    "POST", "/api/v1/events",
                    json:
                        #"{"id": "\#(id)", "event_type_id": "\#(types[0])", "timestamp": "2026-01-0\#(index + 1)T00:00:00Z", "notes": "\#(String(repeating: "x", count: 2000))"}"#
                )
                #expect(created.status == 201)
                events.insert(id)
            }
            let eventPages = try await Self.pages(harness, "/api/v1/events?limit=1000")
            #expect(eventPages.count >= 3 && eventPages.allSatisfy { !$0.isEmpty }, "\(eventPages.map(\.count))")
            #expect(eventPages.flatMap { $0 }.count == 5 && Set(eventPages.flatMap { $0 }) == events)

            // The change feed: has_more and next_cursor carry the listing on.
            var cursor = 0
            var seen: [Int] = []
            var pageCount = 0
            while pageCount < 100 {
                let page = try await harness.send("GET", "/api/v1/changes?since=\(cursor)&limit=500")
                let changes = (page.json?["changes"] as? [[String: Any]]) ?? []
                #expect(page.body.count <= 3000 || changes.count == 1, "\(page.body.count) bytes in \(changes.count)")
                seen += changes.compactMap { $0["id"] as? Int }
                cursor = try #require(page.json?["next_cursor"] as? Int)
                pageCount += 1
                if page.json?["has_more"] as? Bool != true { break }
            }
            #expect(pageCount > 3, "the cap shortened the feed's pages")
            #expect(seen == Array(Set(seen)).sorted() && seen.count == 14, "9 types and 5 events, once each, in order")
        }
    }

    @Test("an event's properties are bounded: 32 KiB of JSON on create, and after a properties_patch")
    func propertiesBound() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            func properties(_ count: Int) -> String {
                (0..<count).map { #""k\#($0)": {"type": "text", "value": "\#(String(repeating: "v", count: 1000))"}"# }
                    .joined(separator: ", ")
            }
            let tooMany = try await harness.postEvent(type: type, #""properties": {\#(properties(40))}"#)
            #expect(tooMany.status == 400 && tooMany.fields == ["properties"] && tooMany.fieldCodes == ["too_long"])
            let id = ServerHarness.newId()
            let fits = try await harness.postEvent(id: id, type: type, #""properties": {\#(properties(20))}"#)
            #expect(fits.status == 201, "\(fits.text)")
            let patch = (20..<40).map {
                #""k\#($0)": {"type": "text", "value": "\#(String(repeating: "v", count: 1000))"}"#
            }
            .joined(separator: ", ")
            let grown = try await harness.send(
                "PUT", "/api/v1/events/\(id)", json: #"{"properties_patch": {\#(patch)}}"#)
            #expect(grown.status == 400 && grown.fields == ["properties"] && grown.fieldCodes == ["too_long"])
        }
    }
}
