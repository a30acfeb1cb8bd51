import Foundation
import Models
import Testing
import TrendyServerTesting

/// `GET /events` writes its pages from the rows (EventListing); `GET /events/{id}` still encodes an `APIEvent` with
/// the shared encoder. A page must be byte for byte the single reads of its events, joined.
@Suite("Event listing")
struct EventListingTests {
    @Test("a page is the Codable encoding of its events: every member, escapes, numbers, properties, the type")
    func pageMatchesCodableEncoding() async throws {
        try await ServerHarness.with { harness in
            let coffee = try await harness.eventType(#"Coffee \"flat\" \\ white"#)  // JSON-escaped
            let tea = try await harness.eventType("Tea ☕")
            let geofence = ServerHarness.newId()
            let fence = try await harness.send(
                "POST", "/api/v1/geofences",
                json: #"{"id":"\#(geofence)","name":"Office","latitude":1.5,"longitude":-2.25,"radius":100}"#)
            #expect(fence.status == 201)
            let bodies = [
                #""event_type_id":"\#(coffee)","timestamp":"2026-01-17T01:44:52.123Z""#,
                #""event_type_id":"\#(tea)","timestamp":"2026-01-17T01:44:53Z","notes":"line\nbreak\t\u0001 \"quoted\" / é 😀","is_all_day":true"#,
                #""event_type_id":"\#(coffee)","timestamp":"2026-01-17T01:44:54Z","end_date":"2026-01-17T02:00:00Z","source_type":"imported","external_id":"ext-1","original_title":"Orig","geofence_id":"\#(geofence)","location_latitude":52.520008,"location_longitude":13.404954,"location_name":"Berlin","properties":{"cups":{"type":"number","value":2.5},"kind":{"type":"select","value":"espresso"},"iced":{"type":"boolean","value":false}}"#,
                #""event_type_id":"\#(tea)","timestamp":"2026-01-17T01:44:55Z","source_type":"healthkit","healthkit_sample_id":"hk-1","healthkit_category":"mindful","location_latitude":0,"location_longitude":1e-7,"properties":{}"#,
            ]
            for key in EventDetails.keys {
                #expect(bodies.contains { $0.contains("\"\(key)\":") }, "the page is checked with \(key) set")
            }
            for body in bodies {
                let created = try await harness.send(
                    "POST", "/api/v1/events", json: #"{"id":"\#(ServerHarness.newId())",\#(body)}"#)
                #expect(created.status == 201, "\(created.text)")
            }
            let page = try await harness.send("GET", "/api/v1/events?limit=10")
            #expect(page.status == 200)
            let ids = try #require(page.jsonArray).compactMap { $0["id"] as? String }
            #expect(ids.count == bodies.count)
            var singles: [Data] = []
            for id in ids {
                let single = try await harness.send("GET", "/api/v1/events/\(id)")
                #expect(single.json?["event_type"] != nil, "the single read embeds the type")
                singles.append(single.body)
            }
            let expected = Data("[".utf8) + singles.joined(separator: Data(",".utf8)) + Data("]".utf8)
            #expect(page.text == String(decoding: expected, as: UTF8.self))
            #expect(page.header("Content-Type") == "application/json; charset=utf-8")

            // Offsets page through the same order.
            var paged: [String] = []
            for offset in 0..<bodies.count {
                let one = try await harness.send("GET", "/api/v1/events?limit=1&offset=\(offset)")
                paged += try #require(one.jsonArray).compactMap { $0["id"] as? String }
            }
            #expect(paged == ids)
            #expect(try await harness.send("GET", "/api/v1/events?offset=10").text == "[]")
        }
    }
}
