import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

/// Bad requests get a 4xx problem body, never a 500, and write nothing (api-v1 §3).
@Suite("Bad input")
struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let path: String
        let body: String?
        let headers: [String: String]
        let status: Int
        let type: String
        let codes: [String]

        init(
            _ name: String, _ method: String, _ path: String, _ body: String?, headers: [String: String] = [:],
            status: Int = 400, type: String, codes: [String] = []
        ) {
            (self.name, self.method, self.path, self.body, self.headers) = (name, method, path, body, headers)
            (self.status, self.type, self.codes) = (status, type, codes)
        }

        var testDescription: String { name }
    }

    static let typeId = "0190f5c0-3f00-7a11-8b22-0000000000a1"
    static let version4 = "5b3c1d2e-8f4a-4b6c-9d0e-1f2a3b4c5d6e"

    static let cases: [Case] = [
        Case("malformed JSON", "POST", "/api/v1/event-types", #"{"name": "x""#, type: "bad_request"),
        Case("a body that is not an object", "POST", "/api/v1/event-types", "[1, 2]", type: "bad_request"),
        Case(
            "wrong JSON types, all reported together", "POST", "/api/v1/event-types",
            #"{"name": 5, "color": true, "icon": "x"}"#, type: "validation", codes: ["invalid_type", "invalid_type"]),
        Case(
            "required fields absent or empty", "POST", "/api/v1/geofences", #"{"name": "", "radius": 100}"#,
            type: "validation", codes: ["required", "required", "required"]),
        Case(
            "an unknown enum value", "POST", "/api/v1/events",
            #"{"event_type_id": "\#(typeId)", "timestamp": "2026-01-01T00:00:00Z", "source_type": "telepathy"}"#,
            type: "validation", codes: ["invalid_value", "unknown_reference"]),
        Case(
            "out-of-range numbers", "POST", "/api/v1/geofences",
            #"{"name": "Pole", "latitude": 91, "longitude": 0, "radius": 10}"#, type: "validation",
            codes: ["out_of_range", "out_of_range"]),
        Case(
            "a malformed timestamp", "POST", "/api/v1/events",
            #"{"event_type_id": "\#(typeId)", "timestamp": "yesterday"}"#, type: "validation",
            codes: ["invalid_format", "unknown_reference"]),
        Case(
            "a property value that is not {type, value}", "POST", "/api/v1/events",
            #"{"event_type_id": "\#(typeId)", "timestamp": "2026-01-01T00:00:00Z", "properties": {"mood": "good"}}"#,
            type: "validation", codes: ["invalid_value", "unknown_reference"]),
        Case(
            "an empty batch", "POST", "/api/v1/events/batch",
            #"{"events": []}"#, type: "validation", codes: ["out_of_range"]),
        Case("a malformed path id", "GET", "/api/v1/events/not-a-uuid", nil, status: 404, type: "not_found"),
        Case(
            "an unknown id on PUT", "PUT", "/api/v1/geofences/\(version4)", #"{"name": "x"}"#, status: 404,
            type: "not_found"),
        Case("a non-integer limit", "GET", "/api/v1/events?limit=ten", nil, type: "bad_request"),
        Case("a negative cursor", "GET", "/api/v1/changes?since=-5", nil, type: "bad_request"),
        Case(
            "a bad Idempotency-Key", "POST", "/api/v1/event-types", #"{"name": "x", "color": "x", "icon": "x"}"#,
            headers: ["Idempotency-Key": String(repeating: "k", count: 256)], type: "bad_request"),
        Case(
            "a property definition of an unknown type", "POST", "/api/v1/event-types/\(typeId)/properties",
            #"{"key": "k", "label": "K", "property_type": "number", "display_order": 1e12}"#, status: 404,
            type: "not_found"),
        Case("an unknown route", "GET", "/api/v1/insights", nil, status: 404, type: "not_found"),
        Case("an unsupported method", "PATCH", "/api/v1/events", nil, status: 404, type: "not_found"),
    ]

    @Test("gets a 4xx problem body and writes nothing", arguments: cases)
    func badInput(_ testCase: Case) async throws {
        try await ServerHarness.with { harness in
            let before = try await harness.feedCount()
            let response = try await harness.send(
                testCase.method, testCase.path, json: testCase.body, headers: testCase.headers)
            #expect(response.status == testCase.status, "\(response.text)")
            #expect(response.problemType == testCase.type)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.json?["error"] as? String == response.json?["detail"] as? String)
            #expect(response.json?["request_id"] as? String == response.header("X-Request-ID"))
            if !testCase.codes.isEmpty { #expect(response.fieldCodes.sorted() == testCase.codes.sorted()) }
            #expect(try await harness.feedCount() == before)
        }
    }

    @Test("a body over 8 MiB is 413 payload_too_large")
    func oversizedBody() async throws {
        try await ServerHarness.with { harness in
            let body = Data(repeating: UInt8(ascii: " "), count: 8 * 1024 * 1024 + 1)
            let response = try await harness.send("POST", "/api/v1/event-types", body: body)
            #expect(response.status == 413 && response.problemType == "payload_too_large")
        }
    }

    @Test("a display order beyond 32 bits on an existing type is out_of_range; a coordinate alone breaks the pair")
    func rangesOnRealParents() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let order = try await harness.send(
                "POST", "/api/v1/event-types/\(type)/properties",
                json: #"{"key": "k", "label": "K", "property_type": "number", "display_order": 1e12}"#)
            #expect(order.status == 400 && order.fieldCodes == ["out_of_range"])
            let pair = try await harness.postEvent(id: ServerHarness.newId(), type: type, #""location_latitude": 1"#)
            #expect(pair.status == 400 && pair.fieldCodes == ["invalid_value"])
            let select = try await harness.send(
                "POST", "/api/v1/event-types/\(type)/properties",
                json: #"{"key": "mood", "label": "Mood", "property_type": "select"}"#)
            #expect(select.status == 400 && select.fields == ["options"] && select.fieldCodes == ["required"])
        }
    }

    @Test("api-v1 §3.5a a properties_patch entry that is neither a property value nor null is 400 naming its key")
    func badPropertiesPatch() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let id = ServerHarness.newId()
            let created = try await harness.postEvent(id: id, type: type)
            #expect(created.status == 201)
            let before = try await harness.feedCount()
            let bad = try await harness.send(
                "PUT", "/api/v1/events/\(id)",
                json: #"{"notes": "x", "properties_patch": {"mood": "good", "ok": null}}"#)
            #expect(bad.status == 400 && bad.fields == ["properties_patch.mood"] && bad.fieldCodes == ["invalid_value"])
            let notObject = try await harness.send("PUT", "/api/v1/events/\(id)", json: #"{"properties_patch": [1]}"#)
            #expect(notObject.status == 400 && notObject.fields == ["properties_patch"])
            #expect(try await harness.feedCount() == before, "nothing written")
        }
    }

    @Test("ids: a version-4 event id is invalid_uuid, a far-future one future_timestamp, a braced one invalid_uuid")
    func eventIds() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            func create(_ id: String) async throws -> RawHTTP.Response {
                try await harness.postEvent(id: id, type: type)
            }
            #expect(try await create(BadInputTests.version4).problemType == "invalid_uuid")
            #expect(try await create("{\(ServerHarness.newId())}").problemType == "invalid_uuid")
            let future = UUIDv7.Generator().generate(at: Date().addingTimeInterval(3600))
            #expect(try await create(future).problemType == "future_timestamp")
            #expect(try await harness.feedCount() == 1)
        }
    }

    @Test("another user's ids: 404 on paths, unknown_reference in bodies, id_taken on creates")
    func otherUsersIds() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType("Mine")
            let stranger = harness.newUser().token
            let get = try await harness.send("GET", "/api/v1/event-types/\(type)", token: stranger)
            #expect(get.status == 404)
            let event = try await harness.send(
                "POST", "/api/v1/events", json: #"{"event_type_id": "\#(type)", "timestamp": "2026-01-01T00:00:00Z"}"#,
                token: stranger)
            #expect(event.status == 400 && event.fieldCodes == ["unknown_reference"])
            let taken = try await harness.send(
                "POST", "/api/v1/event-types",
                json: #"{"id": "\#(type)", "name": "Mine", "color": "black", "icon": "cup"}"#,
                token: stranger)
            #expect(taken.status == 409 && taken.fieldCodes == ["id_taken"] && taken.json?["existing_id"] == nil)
        }
    }
}
