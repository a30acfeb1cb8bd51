import Foundation
import Models
import Sync
import TestSupport
import Testing

@Suite("Identity")
struct IdentityTests {
    @Test("S1 entity ids, mutation ids, keys and history ids are lowercase UUIDv7 of the injected clock")
    func idsFromTheInjectedClock() async throws {
        // The process clock has made an id: its (later) time must not leak into the ids of the harness's clock.
        _ = UUIDv7.generate(at: Date())
        let h = try SyncHarness()
        let instant = h.clock.now().millisecondsSince1970
        func check(_ id: String, _ what: String) {
            #expect(
                UUIDv7.isValid(id) && id == id.lowercased() && UUIDv7.milliseconds(of: id) == instant,
                "S1 \(what) \(id) is a lowercase UUIDv7 of the injected clock")
        }
        let type = try await h.events.createEventType(name: "Tea")
        let fence = try await h.events.createGeofence(name: "Home", latitude: 1, longitude: 2)
        let definition = try await h.events.createPropertyDefinition(
            eventTypeId: type.id, key: "cups", label: "Cups", type: .number)
        let event = try await h.events.createEvent(eventTypeId: type.id, timestamp: Build.instant)
        for (id, kind) in [
            (type.id, "type"), (fence.id, "geofence"), (definition.id, "definition"), (event.id, "event"),
        ] {
            check(id, "the \(kind) id")
        }
        #expect(await h.engine.performSync().outcome.name == "synced")
        _ = try await h.events.updateEventType(id: type.id) { $0.name = "Green tea" }
        _ = try await h.events.updateEventType(id: type.id) { $0.name = "Black tea" }
        try await h.events.deleteGeofence(id: fence.id)
        let queued = try h.queue()
        #expect(queued.count == 2)
        for row in queued {
            check(row.id, "mutation id")
            check(row.clientRequestId, "client_request_id (replaced payloads included)")
        }
        #expect(await h.engine.performSync().outcome.name == "synced")
        let keyed = h.network.calls.filter { $0.idempotencyKey != nil }
        #expect(keyed.count >= 5, "creates, the batch and the update carried keys")
        for call in keyed {
            let key = call.idempotencyKey ?? ""
            if call.method == .createEventsBatchWithIdempotency {
                #expect(key.count == 64 && key.allSatisfy(\.isHexDigit) && key == key.lowercased(), "S31 batch key")
            } else {
                check(key, "Idempotency-Key of \(call.method)")
            }
        }
        let history = try h.history()
        #expect(history.count == 2)
        for entry in history { check(entry.id, "history id") }
    }
}
