import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("EventStore: local writes and reads")
struct EventStoreTests {
    @Test("S3 sync_status: each sync-engine §1.3 transition, each from a row that starts in another status")
    func syncStatusTransitions() async throws {
        let a = try SyncHarness()
        func status(_ id: String) throws -> SyncStatus? { try a.events.eventType(id: id)?.syncStatus }
        _ = try await a.syncedType("Bootstrapped first")  // the first round's bootstrap is behind us
        let type = try await a.events.createEventType(name: "Coffee")
        #expect(try status(type.id) == .pending, "S3 local create → pending")
        _ = try await a.events.updateEventType(id: type.id) { $0.icon = "mug" }
        #expect(try status(type.id) == .pending, "S3 local update leaves pending unchanged")
        _ = await a.engine.performSync()
        #expect(try status(type.id) == .synced, "S3 create acknowledged: pending → synced")

        a.network.enqueue(http(404), for: .updateEventTypeWithIdempotency)
        _ = try await a.events.updateEventType(id: type.id) { $0.color = "brown" }
        #expect(try status(type.id) == .synced, "S3 local update leaves synced unchanged")
        _ = await a.engine.performSync()
        #expect(try status(type.id) == .failed, "S3 dead letter: synced → failed")
        _ = try await a.events.updateEventType(id: type.id) { $0.color = "black" }
        #expect(try status(type.id) == .failed, "S3 local update leaves failed unchanged")
        #expect(try a.mutations(of: type.id).allSatisfy(\.isLive), "the new edit revived the dead letter")
        _ = await a.engine.performSync()
        #expect(try status(type.id) == .synced, "S3 update acknowledged with no dead letter left: failed → synced")

        _ = try await a.events.updateEventType(id: type.id) { $0.name = "Espresso" }
        #expect(try await a.engine.discardMutations(ids: a.mutations(of: type.id).map(\.id)) == 1)
        #expect(try status(type.id) == .failed, "S3 discard: synced → failed")
        let other = try a.secondDevice()
        _ = await other.engine.performSync()
        _ = try await other.events.updateEventType(id: type.id) { $0.name = "Ristretto" }
        _ = await other.engine.performSync()
        _ = await a.engine.performSync()
        #expect(try status(type.id) == .synced, "S3 server data written by a pull: failed → synced")
        #expect(try a.events.eventType(id: type.id)?.name == "Ristretto")

        let clash = try await a.events.createEventType(name: "Clash")
        a.network.enqueue(
            http(409, "conflict", message: "duplicate name", existingId: type.id), for: .createEventTypeWithIdempotency)
        _ = await a.engine.performSync()
        #expect(try status(clash.id) == .failed, "S3 dead-lettered create: pending → failed")
        #expect(try await a.engine.retryDeadLetters(ids: a.mutations(of: clash.id).map(\.id)) == 1)
        #expect(try status(clash.id) == .pending, "S3 a dead-lettered create retried: failed → pending")
        _ = await a.engine.performSync()
        #expect(try status(clash.id) == .synced, "S3 the retried create acknowledged: pending → synced")
    }

    enum Write: String, CaseIterable, CustomTestStringConvertible {
        case create, update, delete
        var testDescription: String { rawValue }
    }

    @Test(
        "S7 an entity write and its mutation commit together: a failing mutation write leaves nothing",
        arguments: Write.allCases)
    func atomicWrites(write: Write) async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let before = (try h.events.eventTypes(), try h.queue())
        h.store.injectFault(.enqueueMutation)
        // S7: A local create, update or delete and its mutation commit in one transaction; if either write fails…
        await #expect(throws: MockDataStore.InjectedFault.self) {
            switch write {
            case .create: _ = try await h.events.createEventType(name: "Tea")
            case .update: _ = try await h.events.updateEventType(id: type.id) { $0.name = "Renamed" }
            case .delete: try await h.events.deleteEventType(id: type.id)
            }
        }
        #expect(try h.events.eventTypes() == before.0 && h.queue() == before.1)
    }

    @Test("S7 a failing entity write after its mutation was queued leaves no mutation")
    func atomicEntityWrite() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        h.store.injectFault(.deleteEvent)
        let event = try await h.event(type, 1)
        await #expect(throws: MockDataStore.InjectedFault.self) { try await h.events.deleteEvent(id: event.id) }
        #expect(try h.events.event(id: event.id) != nil)
        #expect(try h.mutations(of: event.id).map(\.operation) == [.create])
    }

    @Test("S13 an event created and deleted before any sync is never mentioned to the server")
    func cancelledCreate() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        _ = try await h.events.updateEvent(id: event.id) { $0.notes = "typo" }
        try await h.events.deleteEvent(id: event.id)
        #expect(try h.mutations(of: event.id).isEmpty)
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.sentMethods.allSatisfy { [.getChanges, .getGeofences].contains($0) })
        // S13: A delete of an entity whose create is unsent removes the create (and any update) and queues nothing…
        #expect(!h.serverChanges.contains { $0.entityId == event.id })
    }

    @Test(
        "S16 R7 deleting a type locally drops its children's mutations; only events a queued move names it in get deletes"
    )
    func typeDeleteCascade() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let other = try await h.syncedType("Other")
        let synced = try await h.event(type, 1)
        let definition = try await h.events.createPropertyDefinition(
            eventTypeId: type.id, key: "size", label: "Size", type: .number)
        let fence = try await h.events.createGeofence(name: "Office", latitude: 1, longitude: 2) {
            $0.eventTypeEntryId = type.id
        }
        let unrelated = try await h.event(other, 1)
        _ = await h.engine.performSync()
        _ = try await h.events.updateEvent(id: synced.id) { $0.notes = "edited" }
        let unsent = try await h.event(type, 2)

        try await h.events.deleteEventType(id: type.id)
        let queue = try h.queue()
        // R7: the child's queued update changes its notes, not its type: it goes with the type's cascade.
        #expect(queue.map(\.operation) == [.delete] && queue.map(\.entityId) == [type.id])
        #expect(try h.events.events().map(\.id) == [unrelated.id])
        #expect(try h.events.propertyDefinition(id: definition.id) == nil)
        #expect(try h.events.geofence(id: fence.id)?.eventTypeEntryId == nil, "S6 the geofence forgets the type")
        #expect(try h.events.event(id: unsent.id) == nil)

        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(
            !h.network.calls.contains { $0.method == .deleteEvent || $0.method == .createEventsBatchWithIdempotency })
        #expect(h.serverEvents.map(\.id) == [unrelated.id])
        // S16: Deleting an event type locally removes every mutation of its cascaded children and queues no child…
        #expect(h.model.geofences(of: h.network.userId).first?.eventTypeEntryId == nil, "the server clears it too")
    }

    static let instantRule = "must be after 0001-01-01T00:00:00Z and before the year 10000"

    @Test("writes the server would refuse fail now, with a message, and leave nothing behind")
    func validation() async throws {
        let h = try SyncHarness()
        let type = try await h.events.createEventType(name: "Coffee")
        let queued = try h.queue().count
        let failures: [(String, EventStoreError)] = [
            ("empty name", .invalid(field: "name", reason: "must not be empty")),
            ("duplicate type", .duplicate("an event type named \"Coffee\" already exists")),
            ("unknown type", .notFound(.eventType, id: "missing")),
            ("half a location", .invalid(field: "location", reason: "needs both a latitude and a longitude")),
            ("small radius", .invalid(field: "radius", reason: "must be between 50 and 10000")),
            ("a latitude that is no number", .invalid(field: "latitude", reason: "must be between -90 and 90")),
            ("an infinite longitude", .invalid(field: "longitude", reason: "must be between -180 and 180")),
            ("select without options", .invalid(field: "options", reason: "are required for a select property")),
            ("unknown id", .notFound(.event, id: "missing")),
            ("the zero time", .invalid(field: "timestamp", reason: Self.instantRule)),
            ("an end in the year 10000", .invalid(field: "end_date", reason: Self.instantRule)),
        ]
        for (label, expected) in failures {
            do {
                switch label {
                case "empty name": _ = try await h.events.createEventType(name: "  ")
                case "duplicate type": _ = try await h.events.createEventType(name: "Coffee")
                case "unknown type":
                    _ = try await h.events.createEvent(eventTypeId: "missing", timestamp: Build.instant)
                case "half a location":
                    _ = try await h.events.createEvent(eventTypeId: type.id, timestamp: Build.instant) {
                        $0.locationLatitude = 1
                    }
                case "a latitude that is no number":
                    _ = try await h.events.createGeofence(name: "Nowhere", latitude: .nan, longitude: 2)
                case "an infinite longitude":
                    _ = try await h.events.createEvent(eventTypeId: type.id, timestamp: Build.instant) {
                        $0.locationLatitude = 1
                        $0.locationLongitude = .infinity
                    }
                case "small radius":
                    _ = try await h.events.createGeofence(name: "Tiny", latitude: 1, longitude: 2) { $0.radius = 10 }
                case "select without options":
                    _ = try await h.events.createPropertyDefinition(
                        eventTypeId: type.id, key: "mood", label: "Mood", type: .select)
                case "the zero time":
                    // api-v1 §3.2: the wire reads 0001-01-01T00:00:00Z as no time at all; the push could never send it.
                    _ = try await h.events.createEvent(eventTypeId: type.id, timestamp: Date.zeroInstant)
                case "an end in the year 10000":
                    _ = try await h.events.createEvent(eventTypeId: type.id, timestamp: Build.instant) {
                        $0.endDate = Date(millisecondsSince1970: RFC3339.year10000Milliseconds)
                    }
                default: _ = try await h.events.updateEvent(id: "missing") { $0.notes = "x" }
                }
                Issue.record("\(label) was accepted")
            } catch let error as EventStoreError {
                #expect(error == expected, "\(label)")
            }
        }
        #expect(try h.queue().count == queued)
        #expect(try h.events.events().isEmpty && h.events.geofences().isEmpty)
    }

    @Test("a name is a duplicate only byte for byte, as on the server: Café composed and decomposed both edit freely")
    func namesCompareByBytes() async throws {
        let h = try SyncHarness()
        let composed = try await h.events.createEventType(name: "Caf\u{E9}")
        let decomposed = try await h.events.createEventType(name: "Cafe\u{301}")
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: true), "the server took both")
        _ = try await h.events.updateEventType(id: composed.id) { $0.color = "#FF0000" }
        _ = try await h.events.updateEventType(id: decomposed.id) { $0.icon = "cup" }
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.model.listEventTypes(user: h.network.userId).map(\.color).contains("#FF0000"))
        do {
            _ = try await h.events.createEventType(name: "Caf\u{E9}")
            Issue.record("the same bytes again were accepted")
        } catch let error as EventStoreError {
            #expect(error == .duplicate("an event type named \"Caf\u{E9}\" already exists"))
        }
    }

    @Test("event queries filter by type, time and status, newest first, limited")
    func queries() async throws {
        let h = try SyncHarness()
        let coffee = try await h.syncedType()
        let tea = try await h.syncedType("Tea")
        let old = try await h.event(coffee, 0)
        let middle = try await h.event(coffee, 60)
        let newest = try await h.event(coffee, 120)
        let other = try await h.event(tea, 90)
        _ = await h.engine.performSync()
        let pending = try await h.event(coffee, 180)

        #expect(try h.events.events().map(\.id) == [pending.id, newest.id, other.id, middle.id, old.id])
        #expect(try h.events.events(EventQuery(eventTypeId: coffee.id, limit: 2)).map(\.id) == [pending.id, newest.id])
        let window = EventQuery(
            since: Build.instant.addingTimeInterval(60), until: Build.instant.addingTimeInterval(120))
        #expect(try h.events.events(window).map(\.id) == [newest.id, other.id, middle.id])
        #expect(try h.events.events(EventQuery(syncStatus: .pending)).map(\.id) == [pending.id])
        #expect(try h.events.eventTypes().map(\.name) == ["Coffee", "Tea"])
        #expect(try h.events.mutations(of: pending.id).map(\.operation) == [.create])
    }
}
