import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

/// What the queue does when a parent row goes away (sync-engine R7, R8), and restores (api-v1 §7).
@Suite("Removed parents and restores")
struct ParentRemovalTests {
    @Test("R7 an event moved into a type deleted before a sync is deleted on the server too")
    func moveThenDeleteLocally() async throws {
        let h = try SyncHarness()
        let (coffee, tea, _) = try await movedEvent(h)
        try await h.events.deleteEventType(id: tea.id)
        #expect(try h.queue().map(\.operation) == [.delete, .delete], "R7 the move became a delete")
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.serverEvents.isEmpty, "the server's copy under its old type is gone too")
        #expect(h.serverEventTypes.map(\.id) == [coffee.id])
    }

    @Test("R7 another device deletes the type this device moved an event into: the event goes on the server too")
    func moveThenDeletedElsewhere() async throws {
        let a = try SyncHarness()
        let b = try a.secondDevice()
        let (_, tea, _) = try await movedEvent(a, before: { _ = await b.engine.performSync() })
        a.network.enqueue(http(503), for: .updateEventWithIdempotency)  // the move does not get through first
        try await b.events.deleteEventType(id: tea.id)
        _ = await b.engine.performSync()

        _ = await a.engine.performSync()  // pulls tea's delete: the queued move becomes a delete
        let queued = try a.queue()
        #expect(queued.allSatisfy { $0.operation == .delete })
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        let (onA, onB) = (try a.events.events(), try b.events.events())
        #expect(a.serverEvents.isEmpty && onA.isEmpty && onB.isEmpty)
    }

    @Test("R7 a type delete waits for the update that moves an event out of it")
    func typeDeleteWaitsForAMoveOut() async throws {
        let h = try SyncHarness()
        let (coffee, tea, _) = try await movedEvent(h)
        try await h.events.deleteEventType(id: coffee.id)
        h.network.enqueue(http(503), for: .updateEventWithIdempotency)
        let first = await h.engine.performSync()
        #expect(first.deferred == 1 && h.network.callCount(.deleteEventType) == 0, "R7 the delete waits")
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.serverEvents.map(\.eventTypeId) == [tea.id], "the event survived its old type's delete")
    }

    @Test("R8 a geofence edit queued while another device deletes its entry type: retry succeeds without the type")
    func geofenceEditAfterTypeDeleted() async throws {
        let a = try SyncHarness()
        let walk = try await a.syncedType("Walk")
        let fence = try await a.events.createGeofence(name: "Park", latitude: 1, longitude: 2) {
            $0.eventTypeEntryId = walk.id
        }
        _ = await a.engine.performSync()
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        _ = try await a.events.updateGeofence(id: fence.id) { $0.radius = 250 }
        try await b.events.deleteEventType(id: walk.id)
        _ = await b.engine.performSync()

        // The edit names the deleted type: the server refuses it for good.
        a.network.enqueue(
            http(400, "validation", message: "event_type_entry_id names no event type of yours"),
            for: .updateGeofenceWithIdempotency)
        try await a.engine.retryDeadLetters()
        _ = await a.engine.performSync()
        let update = try #require(try a.mutations(of: fence.id).first)
        // R8: the pull applied the type's delete, and the queued payload no longer names it.
        #expect(MutationPayload.id(in: update.payload, key: "event_type_entry_id") == nil)
        try a.saved { store in
            _ = try store.recordMutationFailure(
                id: update.id, revision: update.revision, message: "x", at: a.clock.now(), maxAttempts: 5,
                deadLetterNow: true)
        }
        #expect(try await a.engine.retryDeadLetters() == 1)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        let server = try #require(a.model.geofences(of: a.network.userId).first)
        #expect(server.radius == 250 && server.eventTypeEntryId == nil)
    }

    @Test("R8 a queued create of an event whose type is deleted elsewhere becomes a dead letter, 'parent deleted'")
    func createOfAChildOfARemovedType() async throws {
        let a = try SyncHarness()
        let walk = try await a.syncedType("Walk")
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        try await b.events.deleteEventType(id: walk.id)
        _ = await b.engine.performSync()
        let event = try await a.event(walk, 1)
        a.network.enqueue(http(503), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()
        let create = try #require(try a.mutations(of: event.id).first)
        #expect(create.isDeadLetter && create.lastError == PendingMutation.parentDeletedError)
        #expect(try a.events.event(id: event.id)?.syncStatus == .failed, "kept, failed, for the user to act on")
    }

    @Test(
        "api-v1 §7 restores: an event deleted, then imported from an earlier export, is back on the server and elsewhere"
    )
    func restoreByImport() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let event = try await a.event(type, 1) { $0.notes = "keep me" }
        _ = await a.engine.performSync()
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        let exported = try #require(try a.events.event(id: event.id))

        try await a.events.deleteEvent(id: event.id)
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        let remaining = try b.events.events()
        #expect(a.serverEvents.isEmpty && remaining.isEmpty)

        let summary = try await a.events.importEntities(ImportBatch(events: [exported]), dryRun: false)
        #expect(summary.created[.event] == 1)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(a.serverEvents.map(\.id) == [event.id])
        #expect(try b.events.event(id: event.id)?.notes == "keep me")
    }

    @Test("api-v1 §7 restores: an import of an entity whose delete is still queued replaces the delete with a create")
    func restoreBeforeTheDeleteWasSent() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let event = try await a.event(type, 1)
        _ = await a.engine.performSync()
        let exported = try #require(try a.events.event(id: event.id))
        try await a.events.deleteEvent(id: event.id)
        _ = try await a.events.importEntities(ImportBatch(events: [exported]), dryRun: false)
        #expect(try a.queue().map(\.operation) == [.create])
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        let restored = try a.events.event(id: event.id)
        #expect(a.serverEvents.map(\.id) == [event.id] && restored != nil)
    }

    @Test(
        "R9 discarding a type's delete brings back what its local cascade removed: its events, definitions, references")
    func discardedTypeDeleteRestoresChildren() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        let definition = try await h.events.createPropertyDefinition(
            eventTypeId: type.id, key: "size", label: "Size", type: .text)
        let fence = try await h.events.createGeofence(name: "Park", latitude: 1, longitude: 2) {
            $0.eventTypeEntryId = type.id
        }
        _ = await h.engine.performSync()
        try await h.events.deleteEventType(id: type.id)
        #expect(try h.events.event(id: event.id) == nil && h.events.geofence(id: fence.id)?.eventTypeEntryId == nil)
        #expect(try Set(h.owed().map(\.id)) == [event.id, definition.id, fence.id], "owed after the type's delete")

        try await h.engine.discardMutations()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try h.events.eventType(id: type.id) != nil && h.events.event(id: event.id) != nil)
        #expect(try h.events.propertyDefinition(id: definition.id) != nil)
        #expect(try h.events.geofence(id: fence.id)?.eventTypeEntryId == type.id)
        #expect(try h.owed().isEmpty)
    }

    @Test("a type's delete that goes through settles what its cascade made owed, without a read-back")
    func typeDeleteSettlesItsChildren() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        try await h.event(type, 1)
        _ = await h.engine.performSync()
        try await h.events.deleteEventType(id: type.id)
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let owed = try h.owed()
        #expect(h.network.callCount(.fetchEntity) == 0 && owed.isEmpty)
    }

    @Test("api-v1 §7 restoring a type whose delete is still queued brings its events back from the server")
    func restoreTypeBeforeItsDeleteWasSent() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        _ = await h.engine.performSync()
        let exported = try #require(try h.events.eventType(id: type.id))
        try await h.events.deleteEventType(id: type.id)
        _ = try await h.events.importEntities(ImportBatch(eventTypes: [exported]), dryRun: false)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try h.events.event(id: event.id) != nil, "the server never deleted it; it is read back")
        #expect(h.serverEvents.map(\.id) == [event.id])
    }
}

extension ParentRemovalTests {
    @Test("a restore of an event whose move into a deleted type queued its delete keeps the event")
    func restoreAfterMoveThenDelete() async throws {
        let h = try SyncHarness()
        let coffee = try await h.syncedType("Coffee")
        let tea = try await h.syncedType("Tea")
        let event = try await h.event(coffee, 1)
        _ = await h.engine.performSync()
        let exported = try #require(try h.events.event(id: event.id))
        _ = try await h.events.updateEvent(id: event.id) { $0.eventTypeId = tea.id }
        try await h.events.deleteEventType(id: tea.id)
        _ = try await h.events.importEntities(ImportBatch(events: [exported]), dryRun: false)
        #expect(try h.events.event(id: event.id) != nil)
        let report = await h.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false), "\(report)")
        #expect(try h.events.event(id: event.id)?.eventTypeId == coffee.id)
        #expect(h.serverEvents.map(\.id) == [event.id])
    }
}

extension ParentRemovalTests {
    @Test("an imported entity deleted again before a sync is deleted on the server too: its create counts as sent")
    func restoreThenDeleteAgain() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        _ = await h.engine.performSync()
        let exported = try #require(try h.events.event(id: event.id))
        try await h.events.deleteEvent(id: event.id)
        _ = try await h.events.importEntities(ImportBatch(events: [exported]), dryRun: false)
        try await h.events.deleteEvent(id: event.id)
        #expect(try h.queue().map(\.operation) == [.delete], "the restore's create went; the delete stays")
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.serverEvents.isEmpty)
    }
}

extension ParentRemovalTests {
    @Test("R7 an event whose create was sent, then moved into a type deleted before a sync, is deleted on the server")
    func sentCreateMovedThenTypeDeleted() async throws {
        let h = try SyncHarness()
        // The event's create is sent and unanswered: the server may hold it.
        let (_, tea, _) = try await movedEvent(
            h, beforeSync: { h.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency) }
        )
        try await h.events.deleteEventType(id: tea.id)
        #expect(try h.queue().map(\.operation) == [.delete, .delete], "R7 the event's create and move became a delete")
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let local = try h.events.events()
        #expect(h.serverEvents.isEmpty && local.isEmpty)
    }

    /// Two synced types and an event of the first, a sync, then the event moved into the second type locally (not
    /// yet pushed). `beforeSync` scripts that sync's faults; `before` runs after it (another device's first sync).
    private func movedEvent(
        _ h: SyncHarness, beforeSync: () -> Void = {}, before: () async throws -> Void = {}
    ) async throws -> (from: Models.EventType, to: Models.EventType, event: Event) {
        let coffee = try await h.syncedType("Coffee")
        let tea = try await h.syncedType("Tea")
        let event = try await h.event(coffee, 1)
        beforeSync()
        _ = await h.engine.performSync()
        try await before()
        _ = try await h.events.updateEvent(id: event.id) { $0.eventTypeId = tea.id }
        return (coffee, tea, event)
    }
}
