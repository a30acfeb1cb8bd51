import Foundation
import Models
import Protocols
import TestSupport
import Testing

@testable import Sync

/// sync-engine §1.7: a delete that cancels an unsent create sends nothing, unless the server turns out to hold the
/// entity — a copy of the device's database put back from before the create was sent.
@Suite("Cancelled creates")
struct CancelledCreateTests {
    /// A device whose event create is queued unsent while the server holds the event all the same: what a copy of
    /// the device's database, taken before the create's send and put back after it, looks like.
    private func deviceWithACopiedBackCreate() async throws -> (SyncHarness, Event) {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        h.clock.advance(by: 1)
        _ = try h.model.createEvent(
            user: h.network.userId,
            CreateEventRequest(id: event.id, eventTypeId: type.id, timestamp: event.timestamp), key: nil)
        return (h, event)
    }

    @Test(
        "sync-engine §1.7 the server holds an event whose unsent create a delete cancelled (a database put back from a copy): the pull that brings it queues the delete, and the same sync sends it"
    )
    func pullAnswersWithTheDelete() async throws {
        let (h, event) = try await deviceWithACopiedBackCreate()
        try await h.events.deleteEvent(id: event.id)
        #expect(try h.queue().isEmpty, "cancelled: nothing queued (S13)")
        #expect(try h.engineState().cancelledCreateIds == [event.id])

        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(!h.serverEvents.contains { $0.id == event.id }, "deleted on the server too")
        #expect(try h.events.event(id: event.id) == nil)
        #expect(try h.queue().isEmpty && h.owed().isEmpty && h.engineState().cancelledCreateIds.isEmpty)
    }

    @Test(
        "sync-engine §1.7 a cancelled create written again since (an import of an export that held it) is the queue's: the server's copy queues no delete"
    )
    func writtenAgainIsTheQueues() async throws {
        let (h, event) = try await deviceWithACopiedBackCreate()
        try await h.events.deleteEvent(id: event.id)
        _ = try await h.events.importEntities(ImportBatch(events: [event]), dryRun: false)
        #expect(try h.queue().map(\.operation) == [.create])

        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.serverEvents.contains { $0.id == event.id }, "the import's create stands")
        #expect(try h.events.event(id: event.id) != nil)
        #expect(try h.queue().isEmpty && h.engineState().cancelledCreateIds.isEmpty)
    }

    @Test(
        "sync-engine §1.7 S13 a create cancelled that the server never had is forgotten by the next completed pull; nothing about it is sent"
    )
    func forgottenWhenTheServerLacksIt() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        try await h.events.deleteEvent(id: event.id)
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try h.engineState().cancelledCreateIds.isEmpty)
        #expect(h.sentMethods.allSatisfy { [.getChanges, .getGeofences].contains($0) })
    }

    @Test(
        "sync-engine §1.7 R4 a pull met the server's copy while the create was queued (the entity owed), then the user deleted it: the read-back answers with the delete instead of writing the event back"
    )
    func readBackAnswersWithTheDelete() async throws {
        let (h, event) = try await deviceWithACopiedBackCreate()
        // A pull with the create still unsent (as live mode's stream could bring it): the server's copy is fenced
        // by the queued create, and owed.
        var counts = SyncCounts()
        #expect(try await h.engine.pull(&counts) == .completed)
        #expect(try h.owed().map(\.id) == [event.id])
        #expect(try h.engineState().cursor >= h.serverChanges.last?.id ?? .max, "the pull went past the copy's entry")
        try await h.events.deleteEvent(id: event.id)
        #expect(try h.queue().isEmpty)

        _ = await h.engine.performSync()
        #expect(!h.serverEvents.contains { $0.id == event.id }, "deleted on the server too")
        #expect(try h.events.event(id: event.id) == nil, "not written back")
        #expect(try h.queue().isEmpty && h.owed().isEmpty && h.engineState().cancelledCreateIds.isEmpty)
    }

    @Test(
        "sync-engine §1.7 §5.2 a bootstrap whose snapshot holds an entity whose unsent create was cancelled queues its delete instead of writing it"
    )
    func bootstrapAnswersWithTheDelete() async throws {
        let (h, event) = try await deviceWithACopiedBackCreate()
        try await h.events.deleteEvent(id: event.id)
        let fence = try await h.events.createGeofence(name: "Office", latitude: 1, longitude: 2)
        _ = try h.model.createGeofence(user: h.network.userId, CreateGeofenceRequest(fence), key: nil)
        try await h.events.deleteGeofence(id: fence.id)
        #expect(try h.engineState().cancelledCreateIds == [event.id, fence.id])

        let report = await h.engine.forceFullResync()
        #expect(report.outcome.isCompleted, "\(report)")
        // The bootstrap, then the round that pushes the deletes it queued.
        #expect(try h.history().prefix(2).map(\.kind) == [.incremental, .bootstrap])
        #expect(!h.serverEvents.contains { $0.id == event.id })
        #expect(!h.model.geofences(of: h.network.userId).contains { $0.id == fence.id })
        #expect(try h.events.event(id: event.id) == nil && h.events.geofence(id: fence.id) == nil)
        #expect(try h.queue().isEmpty && h.engineState().cancelledCreateIds.isEmpty)
    }

    @Test(
        "sync-engine §1.7 R9 a discard of an unsent create gives up the change, not the entity: nothing is remembered, and a copy the server holds comes back"
    )
    func discardIsNoCancel() async throws {
        let (h, event) = try await deviceWithACopiedBackCreate()
        #expect(try await h.engine.discardMutations(ids: try h.queue().map(\.id)) == 1)
        #expect(try h.events.event(id: event.id) == nil && h.engineState().cancelledCreateIds.isEmpty)

        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.serverEvents.contains { $0.id == event.id }, "not deleted on the server")
        #expect(try h.events.event(id: event.id) != nil, "the server's copy is back")
    }
}
