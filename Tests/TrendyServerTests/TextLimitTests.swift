import Foundation
import Models
import Testing
import TrendyServerTesting

/// Strings a client sends are whole or refused (api-v1 §3.1, §8.3): a NUL character in
/// any JSON string is 400 `nul_character` — never truncated, never a 500 — and a string over its byte limit is 400
/// `too_long`, each naming the field; in a batch it is that item's error only. Runs on PostgreSQL too
/// (TRENDY_TEST_SERVER_STORAGE=postgres).
@Suite("Text limits")
struct TextLimitTests {
    /// A JSON string literal of `text` (escapes NUL as `\u0000`).
    static func quoted(_ text: String) -> String { JSONText.string(.string(text)) }

    @Test("a NUL in any string of any write is 400 nul_character naming the field, and nothing is written")
    func nulEverywhere() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let event = ServerHarness.newId()
            let created = try await harness.postEvent(id: event, type: type)
            #expect(created.status == 201)
            let nul = Self.quoted("a\u{0}b")
            let cases: [(method: String, path: String, body: String, field: String)] = [
                ("POST", "/api/v1/event-types", #"{"name": \#(nul), "color": "black", "icon": "cup"}"#, "name"),
                ("PUT", "/api/v1/event-types/\(type)", #"{"icon": \#(nul)}"#, "icon"),
                (
                    "POST", "/api/v1/events",
                    #"{"event_type_id": "\#(type)", "timestamp": "2026-01-02T00:00:00Z", "notes": \#(nul)}"#, "notes"
                ),
                (
                    "POST", "/api/v1/events",
                    #"{"event_type_id": "\#(type)", "timestamp": "2026-01-02T00:00:00Z", "properties": {"mood": {"type": "text", "value": \#(nul)}}}"#,
                    "properties.mood.value"
                ),
                (
                    "POST", "/api/v1/events",
                    #"{"event_type_id": "\#(type)", "timestamp": "2026-01-02T00:00:00Z", "properties": {\#(nul): {"type": "text", "value": "x"}}}"#,
                    #"properties.a\u0000b"#
                ),
                ("PUT", "/api/v1/events/\(event)", #"{"notes": \#(nul)}"#, "notes"),
                (
                    "PUT", "/api/v1/events/\(event)",
                    #"{"properties_patch": {"mood": {"type": "text", "value": \#(nul)}}}"#,
                    "properties_patch.mood.value"
                ),
                (
                    "POST", "/api/v1/event-types/\(type)/properties",
                    #"{"key": "mood", "label": "Mood", "property_type": "select", "options": ["ok", \#(nul)]}"#,
                    "options[1]"
                ),
                (
                    "POST", "/api/v1/geofences",
                    #"{"name": \#(nul), "latitude": 1, "longitude": 2, "radius": 100}"#, "name"
                ),
                // Unknown fields are ignored, but not their NULs: "any JSON string".
                ("POST", "/api/v1/event-types", #"{"name": "ok", "color": "black", "icon": "cup", "x": \#(nul)}"#, "x"),
            ]
            let before = try await harness.feedCount()
            for item in cases {
                let response = try await harness.send(item.method, item.path, json: item.body)
                #expect(response.status == 400, "\(item.path) \(item.body): \(response.text)")
                #expect(response.problemType == "validation")
                #expect(response.fieldCodes == ["nul_character"], "\(item.body): \(response.text)")
                #expect(response.fields == [item.field], "\(item.body): \(response.text)")
            }
            #expect(try await harness.feedCount() == before, "nothing written")
            let types = try await harness.send("GET", "/api/v1/event-types")
            #expect(types.text.contains("Coffee") && !types.text.contains(#"\u0000"#))
        }
    }

    @Test("a batch item with a NUL is that item's error; the others are created whole")
    func nulInBatchItem() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let kept = ServerHarness.newId()
            let body = """
                {"events": [
                  {"event_type_id": "\(type)", "timestamp": "2026-01-01T00:00:00Z", "notes": \(Self.quoted("x\u{0}y"))},
                  {"id": "\(kept)", "event_type_id": "\(type)", "timestamp": "2026-01-02T00:00:00Z", "notes": "x y"},
                  {"event_type_id": "\(type)", "timestamp": "2026-01-03T00:00:00Z",
                   "properties": {"k": {"type": "text", "value": \(Self.quoted(String(repeating: "v", count: 4097)))}}}
                ]}
                """
            let response = try await harness.send("POST", "/api/v1/events/batch", json: body)
            #expect(response.status == 207 || response.status == 200, "\(response.text)")
            let errors = try #require(response.json?["errors"] as? [[String: Any]])
            #expect(errors.map { $0["index"] as? Int } == [0, 2])
            #expect(errors.map { $0["code"] as? String } == ["nul_character", "too_long"])
            #expect(errors.map { $0["field"] as? String } == ["notes", "properties.k.value"])
            #expect(response.json?["success"] as? Int == 1)
            let stored = try await harness.send("GET", "/api/v1/events/\(kept)")
            #expect(stored.json?["notes"] as? String == "x y")
            #expect(try await harness.feedCount() == 2, "the type and the one good event")
        }
    }

    @Test("a string at its byte limit is stored whole; one byte more is 400 too_long naming the field")
    func byteLimits() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            // Two-byte characters: the limit counts UTF-8 bytes, not characters.
            let notes = String(repeating: "é", count: TextLimit.notesBytes / 2)
            let id = ServerHarness.newId()
            let atLimit = try await harness.postEvent(id: id, type: type, #""notes": \#(Self.quoted(notes))"#)
            #expect(atLimit.status == 201, "\(atLimit.text)")
            #expect(try await harness.send("GET", "/api/v1/events/\(id)").json?["notes"] as? String == notes)
            let over = try await harness.send(
                "PUT", "/api/v1/events/\(id)", json: #"{"notes": \#(Self.quoted(notes + "x"))}"#)
            #expect(over.status == 400 && over.fieldCodes == ["too_long"] && over.fields == ["notes"], "\(over.text)")

            let name = String(repeating: "n", count: TextLimit.otherBytes)
            let named = try await harness.send(
                "POST", "/api/v1/geofences",
                json: #"{"name": \#(Self.quoted(name)), "latitude": 1, "longitude": 2, "radius": 100}"#)
            #expect(named.status == 201, "\(named.text)")
            let longer = try await harness.send(
                "POST", "/api/v1/event-types",
                json: #"{"name": \#(Self.quoted(name + "n")), "color": "black", "icon": "cup"}"#)
            #expect(longer.status == 400 && longer.fieldCodes == ["too_long"] && longer.fields == ["name"])
            #expect(longer.text.contains("\(TextLimit.otherBytes) bytes"), "the message states the limit")
        }
    }
}
