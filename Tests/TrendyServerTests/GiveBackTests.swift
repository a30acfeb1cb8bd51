import Foundation
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// `POST /api/v1/sync/give-back` (api-v1 §15.1): newer-only, parents first, each item alone.
@Suite("Give-back (api-v1 §15.1)")
struct GiveBackTests {
    /// An item's JSON; `data` is the entity's members.
    static func item(
        _ type: MutationEntityType, _ id: String, at acknowledged: String, deleted: Bool = false, data: String? = nil
    ) -> String {
        let dataMember = data.map { #", "data": {"id": "\#(id)", \#($0)}"# } ?? ""
        return
            #"{"entity_type": "\#(type.rawValue)", "id": "\#(id)", "acknowledged_at": "\#(acknowledged)", "deleted": \#(deleted)\#(dataMember)}"#
    }

    static func giveBack(_ harness: ServerHarness, _ items: [String]) async throws -> [String: String] {
        let answer = try await harness.send(
            "POST", "/api/v1/sync/give-back", json: #"{"items": [\#(items.joined(separator: ", "))]}"#)
        #expect(answer.status == 200, "\(answer.text)")
        let results = try #require(answer.json?["results"] as? [[String: Any]])
        return Dictionary(
            uniqueKeysWithValues: results.compactMap { result in
                (result["id"] as? String).map { ($0, result["outcome"] as? String ?? "?") }
            })
    }

    static func updatedAt(_ harness: ServerHarness, _ path: String) async throws -> String {
        let answer = try await harness.send("GET", "/api/v1/\(path)")
        return try #require(answer.json?["updated_at"] as? String, "\(answer.text)")
    }

    @Test(
        "api-v1 §15.1 a version newer than the server's is taken whole, older or equal ones are kept; the row and its change entry carry the first acknowledgment"
    )
    func newerOnly() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType("Tea")
            let event = try #require(
                try await harness.postEvent(type: type, #""notes": "held", "is_all_day": false"#).json?["id"] as? String
            )
            let held = try await Self.updatedAt(harness, "events/\(event)")
            let older = "2020-01-01T00:00:00.000Z"
            let newer = "2099-01-01T00:00:00.000Z"
            let eventData =
                #""event_type_id": "\#(type)", "timestamp": "2026-01-02T00:00:00.000Z", "is_all_day": true, "source_type": "manual""#
            #expect(
                try await Self.giveBack(harness, [Self.item(.event, event, at: older, data: eventData)]) == [
                    event: "kept"
                ])
            #expect(
                try await Self.giveBack(harness, [Self.item(.event, event, at: held, data: eventData)]) == [
                    event: "kept"
                ])
            let before = try await harness.feedCount()
            #expect(
                try await Self.giveBack(harness, [Self.item(.event, event, at: newer, data: eventData)]) == [
                    event: "applied"
                ])
            let stored = try await harness.send("GET", "/api/v1/events/\(event)")
            #expect(stored.json?["timestamp"] as? String == "2026-01-02T00:00:00.000Z")
            #expect(stored.json?["is_all_day"] as? Bool == true)
            #expect(stored.json?["notes"] == nil, "a field the given-back version holds as null is cleared")
            #expect(stored.json?["updated_at"] as? String == newer)
            let feed = try await harness.send("GET", "/api/v1/changes?since=0&limit=500")
            let changes = try #require(feed.json?["changes"] as? [[String: Any]])
            #expect(changes.count == before + 1)
            let entry = try #require(changes.last?["data"] as? [String: Any])
            #expect(entry["updated_at"] as? String == newer && entry["event_type"] == nil, "\(entry)")
            // A replay of the same request takes nothing more.
            #expect(
                try await Self.giveBack(harness, [Self.item(.event, event, at: newer, data: eventData)]) == [
                    event: "kept"
                ])
            #expect(try await harness.feedCount() == before + 1)
        }
    }

    @Test(
        "api-v1 §15.1 entities the server lost come back parents first, whatever the order of the items; a child without its parent is refused alone"
    )
    func parentsFirst() async throws {
        try await ServerHarness.with { harness in
            let (type, event, definition, orphan) = (
                ServerHarness.newId(), ServerHarness.newId(), ServerHarness.newId(), ServerHarness.newId()
            )
            let at = "2026-11-27T10:00:00.000Z"
            let results = try await Self.giveBack(
                harness,
                [
                    Self.item(
                        .event, event, at: at,
                        data:
                            #""event_type_id": "\#(type)", "timestamp": "2026-01-01T00:00:00.000Z", "is_all_day": false, "source_type": "manual", "created_at": "2026-11-27T09:00:00.000Z""#
                    ),
                    Self.item(
                        .propertyDefinition, definition, at: at,
                        data:
                            #""event_type_id": "\#(type)", "key": "cups", "label": "Cups", "property_type": "number", "display_order": 0"#
                    ),
                    Self.item(.eventType, type, at: at, data: #""name": "Back", "color": "red", "icon": "x""#),
                    Self.item(
                        .event, orphan, at: at,
                        data:
                            #""event_type_id": "\#(ServerHarness.newId())", "timestamp": "2026-01-03T00:00:00.000Z", "is_all_day": false, "source_type": "manual""#
                    ),
                ])
            #expect(results == [type: "applied", definition: "applied", event: "applied", orphan: "refused"])
            let stored = try await harness.send("GET", "/api/v1/events/\(event)")
            #expect(stored.json?["created_at"] as? String == "2026-11-27T09:00:00.000Z", "its creation time comes back")
            #expect(stored.json?["updated_at"] as? String == at)
            #expect(try await harness.send("GET", "/api/v1/events/\(orphan)").status == 404)
            #expect(try await harness.send("GET", "/api/v1/property-definitions/\(definition)").status == 200)
        }
    }

    @Test(
        "api-v1 §15.1 deletes: one newer than the server's row deletes it at its first acknowledgment; an older version given back later is answered deleted"
    )
    func deletes() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType("Gone")
            let event = try #require(try await harness.postEvent(type: type).json?["id"] as? String)
            let deletedAt = "2099-01-01T00:00:00.000Z"
            #expect(
                try await Self.giveBack(harness, [Self.item(.eventType, type, at: deletedAt, deleted: true)]) == [
                    type: "applied"
                ])
            let gone = try await harness.send("GET", "/api/v1/event-types/\(type)")
            #expect(gone.problemType == "deleted" && gone.json?["deleted_at"] as? String == deletedAt, "\(gone.text)")
            #expect(try await harness.send("GET", "/api/v1/events/\(event)").problemType == "deleted", "cascaded")
            let typeData = #""name": "Gone", "color": "black", "icon": "cup""#
            #expect(
                try await Self.giveBack(
                    harness, [Self.item(.eventType, type, at: "2098-01-01T00:00:00.000Z", data: typeData)]) == [
                        type: "deleted"
                    ])
            // A delete of an id the server never held is remembered, so an older version cannot bring it back.
            let unknown = ServerHarness.newId()
            #expect(
                try await Self.giveBack(harness, [Self.item(.eventType, unknown, at: deletedAt, deleted: true)]) == [
                    unknown: "applied"
                ])
            #expect(
                try await Self.giveBack(
                    harness,
                    [
                        Self.item(
                            .eventType, unknown, at: "2026-01-01T00:00:00.000Z",
                            data: #""name": "Other", "color": "black", "icon": "cup""#)
                    ]) == [unknown: "deleted"])
            // Two devices give back one entity in either order: the newest wins.
            let shared = try await harness.eventType("Shared")
            let (first, second) = ("2099-02-01T00:00:00.000Z", "2099-03-01T00:00:00.000Z")
            let newest = #""name": "Newest", "color": "black", "icon": "cup""#
            #expect(
                try await Self.giveBack(harness, [Self.item(.eventType, shared, at: second, data: newest)]) == [
                    shared: "applied"
                ])
            #expect(
                try await Self.giveBack(
                    harness,
                    [
                        Self.item(
                            .eventType, shared, at: first, data: #""name": "Older", "color": "black", "icon": "cup""#)
                    ]) == [shared: "kept"])
            #expect(try await harness.send("GET", "/api/v1/event-types/\(shared)").json?["name"] as? String == "Newest")
            let metrics = String(
                decoding: try await harness.send("GET", "/metrics", authenticated: false).body, as: UTF8.self)
            #expect(metrics.contains(#"trendy_given_back_total{outcome="applied"}"#), "\(metrics)")
        }
    }

    @Test(
        "api-v1 §15.1 a delete and an edit of the incarnation it ended, acknowledged after it by a server that had lost the delete, end deleted in either order; a re-creation after the delete stays in either order"
    )
    func deleteAndLaterEditInEitherOrder() async throws {
        try await ServerHarness.with { harness in
            let (deletedAt, editedAt) = ("2099-01-01T00:00:00.000Z", "2099-02-01T00:00:00.000Z")
            for deleteFirst in [true, false] {
                // As a backup holds it: created long before the delete one device made; another device's edit of it
                // went through later on a copy of the file that had lost the delete.
                let name = deleteFirst ? "Ended first" : "Ended second"
                let type = try await harness.eventType(name)
                let createdAt = try #require(
                    try await harness.send("GET", "/api/v1/event-types/\(type)").json?["created_at"] as? String)
                let delete = Self.item(.eventType, type, at: deletedAt, deleted: true)
                let edit = Self.item(
                    .eventType, type, at: editedAt,
                    data: #""name": "\#(name)", "color": "blue", "icon": "cup", "created_at": "\#(createdAt)""#)
                let outcomes = try await Self.giveBack(harness, [deleteFirst ? delete : edit])
                let then = try await Self.giveBack(harness, [deleteFirst ? edit : delete])
                #expect(
                    [outcomes[type], then[type]] == (deleteFirst ? ["applied", "deleted"] : ["applied", "applied"]),
                    "\(name)")
                let held = try await harness.send("GET", "/api/v1/event-types/\(type)")
                #expect(held.problemType == "deleted", "\(name): \(held.text)")
            }
            // A re-creation after the delete (its creation time later) is another incarnation: it stays either way.
            for deleteFirst in [true, false] {
                let type = ServerHarness.newId()
                let name = deleteFirst ? "Again first" : "Again second"
                let delete = Self.item(.eventType, type, at: deletedAt, deleted: true)
                let recreated = Self.item(
                    .eventType, type, at: editedAt,
                    data:
                        #""name": "\#(name)", "color": "blue", "icon": "cup", "created_at": "2099-01-15T00:00:00.000Z""#
                )
                let outcomes = try await Self.giveBack(harness, [deleteFirst ? delete : recreated])
                let then = try await Self.giveBack(harness, [deleteFirst ? recreated : delete])
                #expect(
                    [outcomes[type], then[type]] == (deleteFirst ? ["applied", "applied"] : ["applied", "kept"]),
                    "\(name)")
                let held = try await harness.send("GET", "/api/v1/event-types/\(type)")
                #expect(held.json?["name"] as? String == name, "\(name): \(held.text)")
            }
        }
    }

    @Test(
        "api-v1 §7 §15.1 a create sent again with Trendy-Queued-For is created when it was queued: a delete of what its first send created, given back after it, ends it; without the header the row is kept; a header that is no duration is refused"
    )
    func resentCreateCountsFromWhenQueued() async throws {
        let (configuration, clock) = manualClockConfiguration()
        try await ServerHarness.with(configuration) { harness in
            // Queued now; the first sends were taken by a server whose file was then put back from a copy that never
            // saw them, and the devices re-send them an hour later. Another device deleted what the first sends
            // created ten minutes after they were queued.
            let queued = clock.now().millisecondsSince1970
            let at = { (minutes: Int64) in RFC3339.string(fromMilliseconds: queued + minutes * 60_000) }
            clock.advance(by: 3_600)
            let resent = [ResentCreate.headerName: "3600000"]  // queued an hour before the re-send
            func createType(_ name: String, headers: [String: String]) async throws -> String {
                let id = ServerHarness.newId()
                let answer = try await harness.send(
                    "POST", "/api/v1/event-types",
                    json: #"{"id":"\#(id)","name":"\#(name)","color":"black","icon":"cup"}"#,
                    headers: headers.merging(["Idempotency-Key": id]) { first, _ in first })
                #expect(answer.status == 201, "\(answer.text)")
                return id
            }
            let (dated, plain) = (
                try await createType("Dated", headers: resent), try await createType("Plain", headers: [:])
            )
            let event = UUIDv7.generate(at: Date(millisecondsSince1970: queued))
            let item = #"{"id":"\#(event)","event_type_id":"\#(plain)","timestamp":"2026-03-01T08:00:00.000Z"}"#
            let batch = try await harness.send(
                "POST", "/api/v1/events/batch", json: #"{"events":[\#(item)]}"#,
                headers: resent.merging(["Idempotency-Key": event]) { first, _ in first })
            #expect(batch.status == 201, "\(batch.text)")
            let answered = (batch.json?["created"] as? [[String: Any]])?.first?["created_at"] as? String
            #expect(answered == at(0), "created when it was queued")
            let stored = try await harness.send("GET", "/api/v1/event-types/\(dated)").json
            #expect(stored?["created_at"] as? String == at(0))
            #expect(stored?["updated_at"] as? String == at(60), "the version is the one taken now")

            let outcomes = try await Self.giveBack(
                harness,
                [
                    Self.item(.event, event, at: at(10), deleted: true),
                    Self.item(.eventType, dated, at: at(10), deleted: true),
                    Self.item(.eventType, plain, at: at(10), deleted: true),
                ])
            #expect(outcomes == [event: "applied", dated: "applied", plain: "kept"])
            #expect(try await harness.send("GET", "/api/v1/events/\(event)").problemType == "deleted")
            #expect(try await harness.send("GET", "/api/v1/event-types/\(dated)").problemType == "deleted")
            #expect(
                try await harness.send("GET", "/api/v1/event-types/\(plain)").status == 200, "created after the delete")

            for value in ["an hour ago", "-5", "1.5"] {
                let malformed = try await harness.send(
                    "POST", "/api/v1/event-types", json: #"{"name":"Never","color":"black","icon":"cup"}"#,
                    headers: [ResentCreate.headerName: value])
                #expect(
                    malformed.status == 400 && malformed.text.contains(ResentCreate.headerName), "\(malformed.text)")
            }
        }
    }

    @Test(
        "api-v1 §6.8 §15.1 compaction keeps when each field last changed: a name lost by a restore comes back over a later edit of another field, a give-back's time included"
    )
    func fieldTimesThroughCompaction() async throws {
        let (configuration, clock) = manualClockConfiguration()
        try await ServerHarness.with(configuration) { harness in
            // "Tea" as the backup held it, acknowledged long before everything else.
            let type = try await harness.eventType("Tea")
            let created = clock.now().millisecondsSince1970
            let at = { (hours: Int64) in RFC3339.string(fromMilliseconds: created + hours * 3_600_000) }
            clock.advance(by: 2 * 86_400)
            // Written after the restore, on the backup's state: a later edit of the colour only.
            #expect(
                try await harness.send("PUT", "/api/v1/event-types/\(type)", json: #"{"color":"red"}"#).status == 200)
            clock.advance(by: 3 * 86_400)
            let horizon = { clock.now().millisecondsSince1970 - 86_400_000 }
            #expect(try await harness.server.compactChangeLog(writtenBefore: horizon()).removed == 1, "the create")

            // A device gives back the name it held acknowledged an hour after the create, before the colour's edit.
            #expect(
                try await Self.giveBack(
                    harness,
                    [Self.item(.eventType, type, at: at(1), data: #""name": "Chai", "color": "black", "icon": "cup""#)]
                ) == [type: "applied"])
            var held = try await harness.send("GET", "/api/v1/event-types/\(type)")
            #expect(held.json?["name"] as? String == "Chai", "\(held.text)")
            #expect(held.json?["color"] as? String == "red", "changed after the item's time")

            // Another edit, then compaction removes the give-back's entry too: the name still counts at the hour
            // it was given back with, so a device holding a later acknowledged name takes it, an earlier one not.
            clock.advance(by: 86_400)
            #expect(
                try await harness.send("PUT", "/api/v1/event-types/\(type)", json: #"{"icon":"star"}"#).status == 200)
            clock.advance(by: 2 * 86_400)
            #expect(try await harness.server.compactChangeLog(writtenBefore: horizon()).removed >= 1)
            #expect(
                try await Self.giveBack(
                    harness,
                    [Self.item(.eventType, type, at: at(0), data: #""name": "Older", "color": "black", "icon": "cup""#)]
                ) == [type: "kept"])
            #expect(
                try await Self.giveBack(
                    harness,
                    [
                        Self.item(
                            .eventType, type, at: at(2), data: #""name": "Masala", "color": "black", "icon": "cup""#)
                    ]
                ) == [type: "applied"])
            held = try await harness.send("GET", "/api/v1/event-types/\(type)")
            #expect(held.json?["name"] as? String == "Masala", "\(held.text)")
            #expect(held.json?["color"] as? String == "red" && held.json?["icon"] as? String == "star", "\(held.text)")
        }
    }

    @Test("api-v1 §15.1 a malformed body is a 400 that names the item, and nothing is written")
    func badInput() async throws {
        try await ServerHarness.with { harness in
            let before = try await harness.feedCount()
            let id = ServerHarness.newId()
            for body in [
                #"{"items": {}}"#,
                #"{"items": [{"entity_type": "planet", "id": "\#(id)", "acknowledged_at": "2026-01-01T00:00:00Z"}]}"#,
                #"{"items": [{"entity_type": "event_type", "id": "\#(id)", "acknowledged_at": "yesterday"}]}"#,
                #"{"items": [{"entity_type": "event_type", "id": "\#(id)", "acknowledged_at": "2026-01-01T00:00:00Z"}]}"#,
            ] {
                let answer = try await harness.send("POST", "/api/v1/sync/give-back", json: body)
                #expect(answer.status == 400, "\(body): \(answer.text)")
            }
            #expect(try await harness.feedCount() == before)
        }
    }
}
