import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

/// Owed read-backs (sync-engine R4, R5, R9): whatever made a local copy unreliable is read back from the server once
/// nothing is queued for the entity, so every device ends where the server is.
@Suite("Owed read-backs")
struct ReadBackTests {
    @Test("R4 a fenced entry makes the entity owed; the next entry applied without a fence ends the debt")
    func fencedEntryIsReadBack() async throws {
        let (a, b, type) = try await twoDevices()
        _ = try await b.events.updateEventType(id: type.id) { $0.color = "#000001" }
        _ = await b.engine.performSync()
        _ = try await a.events.updateEventType(id: type.id) { $0.icon = "mine" }
        a.network.enqueue(http(503), for: .updateEventTypeWithIdempotency)  // the update stays queued this round

        let first = await a.engine.performSync()
        #expect(first.outcome == .partial(bootstrapped: false) && first.owed == 1, "b's entry was fenced")
        #expect(await a.engine.snapshot.owedCount == 1)
        #expect(a.network.callCount(.fetchEntity) == 0, "not read back while its update is queued")

        a.network.resetCalls()
        let second = await a.engine.performSync()
        #expect(second.outcome == .synced(bootstrapped: false) && second.owed == 0)
        #expect(a.network.callCount(.fetchEntity) == 0, "R4 its own update's entry, applied unfenced, ended the debt")
        let server = try #require(a.serverEventTypes.first { $0.id == type.id })
        let local = try #require(try a.events.eventType(id: type.id))
        #expect((local.icon, local.color) == (server.icon, server.color) && local.syncStatus == .synced)
    }

    @Test("R4 a read-back whose entity got a local edit while its GET was in flight is dropped; the debt stays")
    func readBackDroppedForANewEdit() async throws {
        let (a, _, type) = try await twoDevices()
        try a.saved { try $0.markOwed(.eventType, id: type.id, reason: .fenced) }
        let gate = a.network.hold(.fetchEntity)
        let sync = Task { await a.engine.performSync() }
        await gate.waitForArrivals(1)
        _ = try await a.events.updateEventType(id: type.id) { $0.name = "Edited during the read-back" }
        gate.release()
        let report = await sync.value
        #expect(report.owed == 1 && report.outcome == .partial(bootstrapped: false))
        #expect(try a.events.eventType(id: type.id)?.name == "Edited during the read-back", "the edit is kept")

        a.network.stopHolding(.fetchEntity)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try a.owed().isEmpty && a.events.eventType(id: type.id)?.name == "Edited during the read-back")
    }

    @Test("R4 a debt incurred again while its GET was in flight is not settled by that GET's answer")
    func readBackDroppedForANewDebt() async throws {
        let (a, _, type) = try await twoDevices()
        try a.saved { try $0.markOwed(.eventType, id: type.id, reason: .fenced) }
        let token = try #require(try a.owed().first?.token)
        let gate = a.network.hold(.fetchEntity)
        let sync = Task { await a.engine.performSync() }
        await gate.waitForArrivals(1)
        try a.saved { try $0.markOwed(.eventType, id: type.id, reason: .replayed) }
        gate.release()
        #expect(await sync.value.owed == 1)
        #expect(try a.owed().first.map { $0.token != token } == true, "the newer debt is the one left")
    }

    @Test("R4 a read-back answered 404 deletes the row with the local cascade; a transport error ends the round")
    func readBackOutcomes() async throws {
        let (a, b, type) = try await twoDevices()
        let event = try await a.event(type, 1)
        _ = await a.engine.performSync()
        let gone = try await a.events.createEventType(name: "Gone")
        _ = await a.engine.performSync()
        try a.saved { store in
            try store.markOwed(.eventType, id: gone.id, reason: .fenced)
            try store.markOwed(.event, id: event.id, reason: .fenced)
        }
        // The server lost the type (deleted by b) but a has not pulled that yet.
        _ = await b.engine.performSync()
        try await b.events.deleteEventType(id: gone.id)
        _ = await b.engine.performSync()
        try a.updateEngineState { $0.cursor = a.model.latestCursor(user: a.network.userId) }

        a.network.setStickyError(.transport("lost"), for: .fetchEntity)
        let offline = await a.engine.performSync()
        #expect(offline.outcome.name == "offline" && offline.owed == 2, "R4 a transport error keeps the debts")
        a.network.setStickyError(nil, for: .fetchEntity)

        let report = await a.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false) && report.owed == 0)
        #expect(try a.events.eventType(id: gone.id) == nil, "R4 404: deleted locally")
        #expect(try a.events.event(id: event.id)?.syncStatus == .synced, "R4 200: written whole")
    }

    @Test("R4 R14 twenty owed entities of every kind, read back eight at a time: each answer lands on its own row")
    func manyReadBacksAtOnce() async throws {
        let (a, b, type) = try await twoDevices()
        var owed: [(MutationEntityType, String)] = [(.eventType, type.id)]
        for offset in 0..<12 { owed.append((.event, try await a.event(type, Double(offset)).id)) }
        for index in 0..<3 {
            let definition = try await a.events.createPropertyDefinition(
                eventTypeId: type.id, key: "key\(index)", label: "Label \(index)", type: .text)
            owed.append((.propertyDefinition, definition.id))
            let fence = try await a.events.createGeofence(name: "Fence \(index)", latitude: 1, longitude: Double(index))
            owed.append((.geofence, fence.id))
        }
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        // b edits most of them and deletes a quarter of the events; a misses the feed, so only its read-backs can
        // bring it there, several of them at once with different answers (200 changed, 200 unchanged, 404).
        _ = try await b.events.updateEventType(id: type.id) { $0.icon = "edited by b" }
        for (index, (kind, id)) in owed.enumerated() where index % 4 != 1 {
            switch kind {
            case .event where index % 4 == 3: try await b.events.deleteEvent(id: id)
            case .event: _ = try await b.events.updateEvent(id: id) { $0.notes = "b \(index)" }
            case .propertyDefinition:
                _ = try await b.events.updatePropertyDefinition(id: id) { $0.label = "b \(index)" }
            case .geofence: _ = try await b.events.updateGeofence(id: id) { $0.name = "b \(index)" }
            case .eventType: break
            }
        }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        try a.updateEngineState { $0.cursor = a.model.latestCursor(user: a.network.userId) }
        try a.saved { store in
            for (kind, id) in owed { try store.markOwed(kind, id: id, reason: .fenced) }
        }

        let report = await a.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false) && report.owed == 0)
        // The round's geofence refresh rewrites every geofence and settles their debts (sync-engine §4.11) before
        // read-backs.
        let readBack = owed.filter { $0.0 != .geofence }.map(\.1).sorted()
        let fetched = a.network.calls(of: .fetchEntity).compactMap { $0.arguments["id"] }
        #expect(fetched.sorted() == readBack, "R14 every other debt read back once")
        // R4: each row is the server's copy of that entity, under its own id; the deleted events are gone.
        let user = a.network.userId
        let local = try a.events.events()
        #expect(local.map(\.id).sorted() == a.serverEvents.map(\.id).sorted(), "R4 the events are the server's")
        for event in local {
            let server = try #require(a.serverEvents.first { $0.id == event.id })
            #expect(event.notes == server.notes && event.eventTypeId == server.eventTypeId, "R4 event \(event.id)")
        }
        #expect(try a.events.eventType(id: type.id)?.icon == "edited by b", "R4 the type read back whole")
        #expect(try a.events.eventTypes().map(\.id) == [type.id], "R4 no other row took the type's answer")
        let definitions = try a.events.propertyDefinitions(eventTypeId: type.id)
        #expect(
            definitions.map { "\($0.id) \($0.label)" }.sorted()
                == a.model.propertyDefinitions(of: user).map { "\($0.id) \($0.label)" }.sorted(),
            "R4 the definitions are the server's")
        #expect(
            try a.events.geofences().map { "\($0.id) \($0.name)" }.sorted()
                == a.model.geofences(of: user).map { "\($0.id) \($0.name)" }.sorted(),
            "R4 the geofences are the server's")
    }

    @Test("R5 a replayed create whose answer is older than a later edit on another device is read back")
    func replayedCreate() async throws {
        let (a, b, _) = try await twoDevices()
        let type = try await a.events.createEventType(name: "Tea")
        // a's create reaches the server; its answer is lost.
        let create = try #require(try a.mutations(of: type.id).first)
        let body = try JSONCoding.decode(CreateEventTypeRequest.self, from: try #require(create.payload))
        _ = try await a.network.createEventTypeWithIdempotency(body, idempotencyKey: create.clientRequestId)
        a.network.resetCalls()
        // b renames it before a's re-send.
        _ = await b.engine.performSync()
        _ = try await b.events.updateEventType(id: type.id) { $0.name = "Green tea" }
        _ = await b.engine.performSync()
        try a.updateEngineState { $0.cursor = a.model.latestCursor(user: a.network.userId) }  // a missed the feed

        let report = await a.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false) && report.owed == 0)
        #expect(a.network.calls(of: .fetchEntity).map { $0.arguments["id"] } == [type.id], "R5 read back")
        #expect(try a.events.eventType(id: type.id)?.name == "Green tea")
    }

    @Test("R6 two devices rename two types offline to one name: the loser's update is a visible dead letter")
    func renamesToOneName() async throws {
        let (a, b, coffee) = try await twoDevices()
        let tea = try await a.syncedType("Tea")
        _ = await b.engine.performSync()
        _ = try await a.events.updateEventType(id: coffee.id) { $0.name = "Drinks" }
        _ = try await b.events.updateEventType(id: tea.id) { $0.name = "Drinks" }
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        let lost = await b.engine.performSync()
        #expect(lost.outcome == .partial(bootstrapped: false) && lost.deadLettered == 1)
        let dead = try #require(try b.mutations(of: tea.id).first)
        #expect(dead.isDeadLetter && dead.lastError?.hasPrefix("conflict:") == true)
        #expect(try b.events.eventType(id: tea.id)?.syncStatus == .failed)

        // The user renames it again: the edit revives the dead letter, and it goes through.
        _ = try await b.events.updateEventType(id: tea.id) { $0.name = "Teas" }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        for device in [a, b] {
            #expect(try Set(device.events.eventTypes().map(\.name)) == Set(a.serverEventTypes.map(\.name)))
        }
        #expect(Set(a.serverEventTypes.map(\.name)) == ["Drinks", "Teas"])
    }

    @Test("R9 discarding an update or a delete restores the server's copy at the next sync")
    func discardsConverge() async throws {
        let (a, _, type) = try await twoDevices()
        let event = try await a.event(type, 1) { $0.notes = "server" }
        _ = await a.engine.performSync()
        _ = try await a.events.updateEventType(id: type.id) { $0.name = "Never sent" }
        try await a.events.deleteEvent(id: event.id)
        let discarded = try await a.engine.discardMutations()
        #expect(discarded == 2)
        #expect(try Set(a.owed().map(\.id)) == [type.id, event.id], "R9 both are owed")
        #expect(try a.engineState().pendingDeleteIds.isEmpty)

        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try a.events.eventType(id: type.id)?.name == "Coffee", "the server's name is back")
        #expect(try a.events.event(id: event.id)?.notes == "server", "the deleted event is back")
        #expect(a.network.callCount(.deleteEvent) == 0 && a.network.callCount(.updateEventTypeWithIdempotency) == 0)
    }

    @Test("R9 a discarded create never sent removes its row at once; one that was sent is read back")
    func discardedCreates() async throws {
        let (a, _, type) = try await twoDevices()
        let unsent = try await a.event(type, 1)
        let sent = try await a.events.createEventType(name: "Sent")
        _ = try a.saved { try $0.claimMutations(ids: try a.mutations(of: sent.id).map(\.id), at: a.clock.now()) }
        try await a.engine.discardMutations()
        #expect(try a.events.event(id: unsent.id) == nil, "never sent: gone at once")
        #expect(try a.events.eventType(id: sent.id)?.syncStatus == .failed, "sent: kept until read back")
        #expect(try a.owed().map(\.id) == [sent.id])
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try a.events.eventType(id: sent.id) == nil, "the server never stored it: 404 removes the row")
    }
}

extension SyncHarness {
    /// Runs `body` on a fresh store and commits it.
    @discardableResult
    func saved<T>(_ body: (any DataStoreProtocol) throws -> T) throws -> T { try stores.saved(body) }
}
