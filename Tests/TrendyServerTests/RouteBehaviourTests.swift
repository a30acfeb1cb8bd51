import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

@Suite("Route behaviour")
struct RouteBehaviourTests {
    @Test("timestamps: any offset and up to 9 digits in, UTC with exactly three digits out")
    func timestampNormalisation() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let response = try await harness.send(
                "POST", "/api/v1/events",
                json:
                    #"{"id":"\#(ServerHarness.newId())","event_type_id":"\#(type)","timestamp":"2026-01-17t02:44:52.123456789+01:00","end_date":""}"#
            )
            #expect(response.status == 201)
            #expect(response.json?["timestamp"] as? String == "2026-01-17T01:44:52.123Z")
            #expect(response.json?["end_date"] == nil, "\"\" on create means absent")
            #expect(response.json?["properties"] == nil && response.json?["event_type"] == nil)
        }
    }

    @Test("201 for a new row, 200 with the stored row for an identical re-send, 204 for a delete")
    func statuses() async throws {
        try await ServerHarness.with { harness in
            let body = #"{"id":"\#(ServerHarness.newId())","name":"Office","latitude":0,"longitude":0,"radius":100}"#
            let created = try await harness.send("POST", "/api/v1/geofences", json: body)
            let again = try await harness.send("POST", "/api/v1/geofences", json: body)
            #expect(created.status == 201 && again.status == 200 && again.body == created.body)
            #expect(created.json?["is_active"] as? Bool == true, "is_active defaults to true; 0 is a valid coordinate")
            let id = try #require(created.json?["id"] as? String)
            let deleted = try await harness.send("DELETE", "/api/v1/geofences/\(id)")
            #expect(deleted.status == 204 && deleted.body.isEmpty)
            #expect(created.header("Content-Type") == "application/json; charset=utf-8")
            #expect(created.header("Cache-Control") == "no-store")
        }
    }

    @Test("api-v1 §2.1 Trendy-Features on every answer, /health and errors included; the original sends none")
    func features() async throws {
        try await ServerHarness.with { harness in
            for response in [
                try await harness.send("GET", "/health"), try await harness.send("GET", "/api/v1/event-types"),
                try await harness.send("GET", "/api/v1/events/\(ServerHarness.newId())"),
            ] {
                let features = ServerFeatures(header: response.header(ServerFeatures.headerName))
                #expect(features.has(ServerFeatures.after), "status \(response.status)")
            }
        }
        var original = LiveTrendyServer.testConfiguration()
        original.quirks = .original
        try await ServerHarness.with(original) { harness in
            let answer = try await harness.send("GET", "/api/v1/event-types")
            #expect(answer.header(ServerFeatures.headerName) == nil)
        }
    }

    @Test("api-v1 §5.3.1 after: keyset pages carry X-Next-After until the last; with offset, or malformed, it is 400")
    func keysetListing() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            for second in 1...3 {
                let created = try await harness.send(
                    "POST", "/api/v1/events",
                    json:
                        #"{"id":"\#(ServerHarness.newId())","event_type_id":"\#(type)","timestamp":"2026-01-01T00:00:0\#(second)Z"}"#
                )
                #expect(created.status == 201)
            }
            let first = try await harness.send("GET", "/api/v1/events?limit=2")
            let token = try #require(first.header("X-Next-After"))
            #expect((first.jsonArray?.count, first.header("X-Next-After") != nil) == (2, true))
            let last = try await harness.send("GET", "/api/v1/events?limit=2&after=\(token)")
            #expect(last.jsonArray?.count == 1 && last.header("X-Next-After") == nil, "the last page has no token")
            let byOffset = try await harness.send("GET", "/api/v1/events?limit=2&offset=0")
            #expect(byOffset.jsonArray?.count == 2 && byOffset.header("X-Next-After") == nil, "offset pages carry none")
            for bad in ["after=\(token)&offset=0", "after=garbage", "after=12.not-a-uuid"] {
                let refused = try await harness.send("GET", "/api/v1/events?\(bad)")
                #expect(refused.status == 400 && refused.json?["type"] as? String == "urn:trendy:error:bad_request")
            }
        }
    }

    @Test("a valid X-Request-ID is echoed; an invalid one is replaced")
    func requestIds() async throws {
        try await ServerHarness.with { harness in
            let echoed = try await harness.send("GET", "/api/v1/event-types", headers: ["X-Request-ID": "trace-42"])
            #expect(echoed.header("X-Request-ID") == "trace-42")
            let replaced = try await harness.send(
                "GET", "/api/v1/event-types", headers: ["X-Request-ID": String(repeating: "x", count: 129)])
            #expect(replaced.header("X-Request-ID").map { $0.count == 36 } == true)
        }
    }

    @Test("GET /events: limit 1–1000 as given, anything else 100; the default is 50; newest first")
    func eventLimits() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let base = Date().addingTimeInterval(-86_400).millisecondsSince1970
            let items = (0..<120).map { index in
                #"{"id":"\#(UUIDv7.generate(at: Date()))","event_type_id":"\#(type)","timestamp":"\#(RFC3339.string(fromMilliseconds: base + Int64(index) * 1000))"}"#
            }
            let batch = try await harness.send(
                "POST", "/api/v1/events/batch", json: #"{"events":[\#(items.joined(separator: ","))]}"#)
            #expect(batch.status == 201)
            #expect(try await harness.send("GET", "/api/v1/events").jsonArray?.count == 50)
            #expect(try await harness.send("GET", "/api/v1/events?limit=2000").jsonArray?.count == 100)
            #expect(try await harness.send("GET", "/api/v1/events?limit=0").jsonArray?.count == 100)
            let page = try await harness.send("GET", "/api/v1/events?limit=3&offset=1")
            let times = page.jsonArray?.compactMap { $0["timestamp"] as? String } ?? []
            #expect(times == times.sorted(by: >) && times.count == 3)
            #expect(page.jsonArray?.first?["event_type"] != nil)
        }
    }

    @Test("HealthKit: same type, category and whole second matches another sample id; the full row comes back")
    func healthKitCategoryMatch() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            func sample(_ sampleId: String, _ time: String) -> String {
                #"{"id":"\#(ServerHarness.newId())","event_type_id":"\#(type)","timestamp":"\#(time)","source_type":"healthkit","healthkit_sample_id":"\#(sampleId)","healthkit_category":"sleep"}"#
            }
            let first = try await harness.send("POST", "/api/v1/events", json: sample("A", "2026-01-17T01:44:52.100Z"))
            let match = try await harness.send("POST", "/api/v1/events", json: sample("B", "2026-01-17T01:44:52.900Z"))
            #expect(first.status == 201 && match.status == 200)
            #expect(match.json?["id"] as? String == first.json?["id"] as? String)
            #expect(match.json?["healthkit_sample_id"] as? String == "A" && match.json?["user_id"] != nil)
            #expect(try await harness.feedCount() == 2, "a match writes no feed row")
        }
    }

    @Test("a PUT that changes nothing keeps updated_at and writes no row; a change bumps updated_at")
    func noOpPut() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType("Same")
            let before = try await harness.send("GET", "/api/v1/event-types/\(type)")
            let same = try await harness.send("PUT", "/api/v1/event-types/\(type)", json: "{}")
            #expect(same.status == 200 && same.json?["updated_at"] as? String == before.json?["updated_at"] as? String)
            #expect(try await harness.feedCount() == 1)
            let empty = try await harness.send("PUT", "/api/v1/event-types/\(type)", json: #"{"name":""}"#)
            #expect(empty.status == 400 && empty.fieldCodes == ["required"])
        }
    }
}
