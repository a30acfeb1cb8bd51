import Foundation
import Hashing
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Bootstrap")
struct BootstrapTests {
    /// Every local row as "kind id name", for before/after comparisons.
    func localRows(_ h: SyncHarness) throws -> [String] {
        try h.events.eventTypes().map { "type \($0.id) \($0.name)" }
            + h.events.events().map { "event \($0.id) \($0.notes ?? "")" }
            + h.events.geofences().map { "geofence \($0.id) \($0.name)" }
    }

    @Test("S80 cursor 0 or a requested resync: no GET /changes and no geofence refresh; otherwise no GET /events")
    func whichPull() async throws {
        let h = try SyncHarness()
        _ = await h.engine.performSync()
        #expect(h.network.callCount(.getChanges) == 0 && h.network.callCount(.getEventsPage) == 1)
        #expect(h.network.callCount(.getGeofences) == 1, "the snapshot's own list, not a refresh")

        _ = try await h.syncedType()
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.network.callCount(.getEventsPage) == 0 && h.network.callCount(.getLatestCursor) == 0)
        #expect(h.network.callCount(.getChanges) == 1 && h.network.callCount(.getGeofences) == 1)

        try h.updateEngineState { $0.bootstrapRequested = true }
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: true))
        // S80: A round with cursor == 0 or bootstrap_requested sends no GET /changes and no geofence refresh; a round…
        #expect(h.network.callCount(.getChanges) == 0 && h.network.callCount(.getEventsPage) == 1)
        #expect(h.network.callCount(.getGeofences) == 1)
    }

    @Test("sync-engine §1.9 a snapshot of another account ends the round with an error and changes nothing local")
    func snapshotOfAnotherAccount() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        try await h.event(type, 1)
        _ = await h.engine.performSync()
        let before = try localRows(h)
        try h.updateEngineState {
            $0.bootstrapRequested = true
            $0.accountUserId = "0190aaaa-0000-7000-8000-000000000000"
        }
        let report = await h.engine.performSync()
        guard case .error(let message) = report.outcome else {
            Issue.record("expected an error, got \(report.outcome)")
            return
        }
        #expect(message.contains("0190aaaa-0000-7000-8000-000000000000"))
        #expect(try localRows(h) == before)
        #expect(try h.engineState().bootstrapRequested, "the bootstrap is still owed")

        try h.updateEngineState { $0.accountUserId = nil }
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(try h.engineState().accountUserId?.isEmpty == false, "bound on the snapshot's answer")
    }

    @Test("S81 the latest cursor is read before any snapshot request; if that fails nothing is fetched")
    func latestCursorFirst() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        try h.updateEngineState { $0.bootstrapRequested = true }
        h.network.resetCalls()
        _ = await h.engine.performSync()
        // R15 compares digests (and gives back) between the cursor read and the listing: left out here.
        let methods = h.network.calls.map(\.method).filter { ![.getDigest, .getDigestBucket, .giveBack].contains($0) }
        #expect(Array(methods.prefix(2)) == [.getLatestCursor, .getEventTypes], "S25 the cursor read is the probe")
        #expect(methods.filter { $0 == .getLatestCursor }.count == 1, "R11: a keyset listing is not taken again")

        let cursor = try h.engineState().cursor
        try h.updateEngineState { $0.bootstrapRequested = true }
        h.network.resetCalls()
        h.network.enqueue(http(500), for: .getLatestCursor)
        #expect(
            await h.engine.performSync().outcome.name == "offline", "S25 S26 a failed probe is a failed health check")
        #expect(h.sentMethods == [.getLatestCursor])
        #expect(try h.engineState().cursor == cursor && h.engineState().bootstrapRequested)
        h.network.resetCalls()
        // S81: GET /changes/latest-cursor is read before any snapshot request; if it fails, nothing is fetched, the…
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: true), "the next round bootstraps")
    }

    @Test(
        "S82 nothing local changes until the whole snapshot is fetched",
        arguments: [MockNetworkClient.Method.getEventTypes, .getGeofences, .getEventsPage])
    func fetchFailureTouchesNothing(failing method: MockNetworkClient.Method) async throws {
        let (a, _) = try await devicesWithDivergedData()
        let before = try localRows(a)
        try a.updateEngineState { $0.bootstrapRequested = true }
        // Nothing is queued, so the round sends no health check (S25): the first GET /event-types is the snapshot's.
        a.network.enqueue(http(500, message: "snapshot failed"), for: method)

        let report = await a.engine.performSync()
        #expect(report.outcome.name == "error")
        // S82: Nothing local changes until the whole snapshot is fetched; any fetch failure leaves local data as it…
        #expect(try localRows(a) == before)
        #expect(try a.engineState().bootstrapRequested, "S85 the flag survives a failed attempt")
    }

    /// `a` and `b` share a type; then `b` renamed it, added an event and a geofence, and `a` has not pulled.
    func devicesWithDivergedData() async throws -> (SyncHarness, SyncHarness) {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        try await a.event(type, 1)
        _ = await a.engine.performSync()
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        _ = try await b.events.updateEventType(id: type.id) { $0.name = "Renamed on b" }
        try await b.event(type, 2)
        _ = try await b.events.createGeofence(name: "Gym", latitude: 1, longitude: 2)
        _ = await b.engine.performSync()
        return (a, b)
    }

    @Test(
        "S83 R3 the bootstrap rebases rows with pending updates, skips tombstones, replaces the rest, stores the cursor"
    )
    func replaceButProtect() async throws {
        let a = try SyncHarness()
        let edited = try await a.syncedType("Edited here")
        let plain = try await a.syncedType("Plain")
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        _ = try await b.events.updateEventType(id: edited.id) { $0.name = "Edited on b" }
        _ = try await b.events.updateEventType(id: plain.id) { $0.name = "Plain from b" }
        let tombstoned = try await b.events.createEventType(name: "Deleted on a")
        _ = await b.engine.performSync()

        _ = try await a.events.updateEventType(id: edited.id) { $0.icon = "mine" }
        let unsent = try await a.event(plain, 5)
        let stray = Build.eventType(id: Build.id(4040), name: "Not on the server", syncStatus: .synced)
        let store = a.stores.makeDataStore()
        _ = try store.upsertEventType(id: stray.id) { $0 = stray }
        try store.save()
        try a.updateEngineState {
            $0.pendingDeleteIds = [tombstoned.id]
            $0.bootstrapRequested = true
        }
        a.network.enqueue(http(500), for: .updateEventTypeWithIdempotency)
        a.network.enqueue(http(500), for: .createEventsBatchWithIdempotency)
        a.network.setStickyError(http(503), for: .fetchEntity)  // R4's read-backs wait: the snapshot alone is seen

        let report = await a.engine.performSync()
        #expect(report.outcome == .partial(bootstrapped: true))
        let types = try Dictionary(uniqueKeysWithValues: a.events.eventTypes().map { ($0.id, $0) })
        // R3: the server's name (b's edit) under a's queued icon; the row keeps its update's status and is owed.
        #expect(types[edited.id]?.name == "Edited on b" && types[edited.id]?.icon == "mine", "rebased")
        #expect(types[edited.id]?.syncStatus == .pending)
        #expect(types[plain.id]?.name == "Plain from b", "replaced")
        #expect(types[stray.id] == nil, "rows the server does not have are gone")
        // S83: The bootstrap keeps every entity with a create or update mutation untouched, does not insert…
        #expect(types[tombstoned.id] == nil, "tombstoned ids are not inserted")
        #expect(try a.events.event(id: unsent.id) != nil, "an event with a create mutation is kept")
        #expect(try a.engineState().cursor == a.model.latestCursor(user: a.network.userId))
        #expect(try a.history().first.map { $0.kind == .bootstrap && $0.fenced == 1 } == true, "the tombstone")
        // R4: the tombstone was skipped only because of pending_delete_ids, and the server has it: it is owed; the
        // rebased type is owed too, for the read-back after its update goes through.
        #expect(try Set(a.owed().map(\.id)).isSuperset(of: [tombstoned.id, edited.id]))
    }

    @Test(
        "sync-engine §5.2 against a server without keyset paging the snapshot is taken again while the cursor moves during it"
    )
    func retakeWhenCursorMoves() async throws {
        let (a, b) = try await devicesWithDivergedData()
        a.network.announce(ServerFeatures())  // the original backend: offset pages only (R11)
        try a.updateEngineState { $0.bootstrapRequested = true }
        a.network.resetCalls()
        let gate = a.network.hold(.getAllEvents)
        let sync = Task { await a.engine.performSync() }
        await gate.waitForArrivals(1)
        let late = try await b.events.createEventType(name: "Written during the snapshot")
        _ = await b.engine.performSync()
        gate.release()

        #expect(await sync.value.outcome == .synced(bootstrapped: true))
        #expect(a.network.callCount(.getAllEvents) == 2 && a.network.callCount(.getLatestCursor) == 3)
        #expect(try a.events.eventType(id: late.id) != nil)
        #expect(try a.engineState().cursor == a.model.latestCursor(user: a.network.userId))
        #expect(try localRows(a).sorted() == localRows(b).sorted())
    }

    @Test(
        "R15 a bootstrap during which the server goes back to a backup takes no snapshot: an event the device holds acknowledged stays, and the next round gives it back"
    )
    func bootstrapSpanningARestore() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        let cup = try await a.event(type, 1)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        // A full resync whose event listing is held while the server goes back to its backup.
        let gate = a.network.hold(.getEventsPage)
        let resync = Task { await a.engine.forceFullResync() }
        await gate.waitForArrivals(1)
        a.model.restore(backup)
        gate.release()
        let report = await resync.value
        #expect(report.outcome != .synced(bootstrapped: true), "no snapshot across two histories: \(report)")
        #expect(try a.events.event(id: cup.id) != nil, "the acknowledged event is still held")

        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(a.serverEvents.contains { $0.id == cup.id }, "given back")
        #expect(try a.events.event(id: cup.id) != nil)
    }

    /// `b` synced five events of one type, a second apart; `c` is a new device of the same user that bootstraps
    /// in pages of two.
    func fiveEventsAndANewDevice() async throws -> (b: SyncHarness, c: SyncHarness, created: [Event]) {
        let b = try SyncHarness()
        let type = try await b.syncedType()
        var created: [Event] = []
        for offset in 1...5 { created.append(try await b.event(type, Double(offset))) }
        _ = await b.engine.performSync()
        return (b, try b.secondDevice(configuration: try SyncConfiguration(bootstrapEventsPageSize: 2)), created)
    }

    @Test("R11 a bootstrap while another device deletes events misses no unchanged event (keyset pages)")
    func keysetListingIgnoresConcurrentDeletes() async throws {
        let (b, c, created) = try await fiveEventsAndANewDevice()
        // c reads the cursor and its first page, then b deletes the newest event before c asks for the next page.
        let cursor = c.model.latestPosition(user: c.network.userId)
        let firstPage = try c.model.listEventsPage(user: c.network.userId, limit: 2, after: nil)
        try await b.events.deleteEvent(id: created[4].id)
        _ = await b.engine.performSync()
        c.network.enqueue(cursor, for: .getLatestCursor)
        c.network.enqueue(firstPage, for: .getEventsPage)

        #expect(await c.engine.performSync().outcome == .synced(bootstrapped: true))
        let afters = c.network.calls(of: .getEventsPage).map { $0.arguments["after"] }
        #expect(afters.count == 3 && afters[0] == nil && afters[1] == firstPage.nextAfter, "the pages chain by token")
        let local = Set(try c.events.events().map(\.id))
        // R11: every event that existed for the whole listing is there, though a delete shifted the rows after it.
        #expect(Set(created.prefix(4).map(\.id)).isSubset(of: local))
        #expect(c.network.callCount(.getLatestCursor) == 1, "one pass: keyset pages cannot shift")
        _ = await c.engine.performSync()
        #expect(try Set(c.events.events().map(\.id)) == Set(created.prefix(4).map(\.id)), "the next pull deletes it")
    }

    @Test("S82 R11 a listing that failed after staging pages leaves nothing for the next: a deleted event stays gone")
    func failedStagingIsForgotten() async throws {
        let (b, c, created) = try await fiveEventsAndANewDevice()
        // c stages the first page (the two newest events), then the listing fails.
        let firstPage = try c.model.listEventsPage(user: c.network.userId, limit: 2, after: nil)
        #expect(firstPage.events.map(\.id).contains(created[4].id))
        c.network.enqueue(firstPage, for: .getEventsPage)
        c.network.enqueue(http(500, message: "the listing failed"), for: .getEventsPage)
        #expect(await c.engine.performSync().outcome.name == "error")
        #expect(try c.events.events().isEmpty, "S82: nothing local changed")

        // The server deletes a staged event before the next attempt, which must not bring it back.
        try await b.events.deleteEvent(id: created[4].id)
        _ = await b.engine.performSync()
        #expect(await c.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(try Set(c.events.events().map(\.id)) == Set(created.prefix(4).map(\.id)))
    }

    @Test("S84 a property-definition fetch failure keeps that type's local definitions and the bootstrap succeeds")
    func unfetchedDefinitionsKept() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let definition = try await a.events.createPropertyDefinition(
            eventTypeId: type.id, key: "size", label: "Size", type: .number)
        _ = await a.engine.performSync()
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        try await b.events.deletePropertyDefinition(id: definition.id)
        _ = await b.engine.performSync()

        try a.updateEngineState { $0.bootstrapRequested = true }
        a.network.enqueue(http(500), for: .getPropertyDefinitions)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(try a.events.propertyDefinition(id: definition.id) != nil)

        try a.updateEngineState { $0.bootstrapRequested = true }
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: true))
        // S84: A property-definition fetch failure for one type keeps that type's local definitions and does not fail…
        #expect(try a.events.propertyDefinition(id: definition.id) == nil, "fetched this time: replaced")
    }

    @Test("A type whose definitions a bootstrap could not fetch is fetched again after the next pull")
    func unfetchedDefinitionsFetchedAgain() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let kept = try await a.events.createPropertyDefinition(
            eventTypeId: type.id, key: "size", label: "Size", type: .number)
        _ = await a.engine.performSync()
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        let added = try await b.events.createPropertyDefinition(
            eventTypeId: type.id, key: "mood", label: "Mood", type: .text)
        try await b.events.deletePropertyDefinition(id: kept.id)
        _ = await b.engine.performSync()

        try a.updateEngineState { $0.bootstrapRequested = true }
        a.network.enqueue(http(500), for: .getPropertyDefinitions)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(try a.engineState().unfetchedDefinitionTypes == [type.id])
        #expect(try a.events.propertyDefinition(id: added.id) == nil, "the bootstrap's cursor is past its create")

        a.network.enqueue(http(503), for: .getPropertyDefinitions)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false), "a failed fetch again: logged")
        #expect(try a.engineState().unfetchedDefinitionTypes == [type.id], "and left for the next round")

        a.network.resetCalls()
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(a.network.calls(of: .getPropertyDefinitions).count == 1)
        #expect(try a.events.propertyDefinition(id: added.id)?.label == "Mood", "the missed create arrives")
        #expect(try a.events.propertyDefinition(id: kept.id) == nil, "the kept one the server deleted goes")
        #expect(try a.engineState().unfetchedDefinitionTypes.isEmpty)

        a.network.resetCalls()
        _ = await a.engine.performSync()
        #expect(a.network.calls(of: .getPropertyDefinitions).isEmpty, "nothing left to fetch again")
    }

    @Test(
        "R15 a bootstrap that meets a new history gives back a row nobody acknowledged that the server lacks, whatever asked for it (a `sync --full`)"
    )
    func fullResyncMeetingNewHistory() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        let backup = h.model.backUp()
        h.clock.advance(by: 10)
        let served = try h.model.createEventType(
            user: h.network.userId,
            CreateEventTypeRequest(id: nil, name: "Synced long ago", color: "#123456", icon: "star"),
            key: nil)
        // Held as a device that synced it before acknowledgments were recorded holds it: with none (R15).
        let store = h.stores.makeDataStore()
        _ = try store.upsertEventType(id: served.id) { row in
            row.fields = served.fields
            if let createdAt = served.createdAt { row.createdAt = createdAt }
        }
        try store.save()
        #expect(try h.read { try $0.acknowledgedVersions(ids: [served.id]) }.isEmpty)
        h.clock.advance(by: 60)
        h.model.restore(backup)

        let report = await h.engine.forceFullResync()
        #expect(report.outcome == .synced(bootstrapped: true) && report.counts.givenBack == 1, "\(report)")
        #expect(h.serverEventTypes.contains { $0.id == served.id && $0.fields.name == "Synced long ago" })
        #expect(try h.events.eventType(id: served.id)?.name == "Synced long ago", "not taken away by the snapshot")
    }

    @Test(
        "R15 a first bootstrap that failed after its push leaves the cursor at 0, yet the next one gives back what was acknowledged"
    )
    func firstBootstrapFailedAfterPush() async throws {
        let h = try SyncHarness()
        let backup = h.model.backUp()
        h.clock.advance(by: 10)
        let type = try await h.events.createEventType(name: "Pushed")
        h.network.setStickyError(http(500), for: .getEventsPage)
        _ = await h.engine.performSync()  // pushed, then the snapshot failed
        #expect(try h.engineState().cursor == 0 && h.queue().isEmpty)
        h.clock.advance(by: 60)
        h.model.restore(backup)
        h.network.setStickyError(nil, for: .getEventsPage)

        let report = await h.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: true) && report.counts.givenBack == 1, "\(report)")
        #expect(h.serverEventTypes.contains { $0.id == type.id })
        #expect(try h.events.eventType(id: type.id) != nil, "not taken away by the snapshot")
    }

    @Test("S85 forceFullResync stores the flag: a new engine after a failed attempt still bootstraps")
    func forcedResyncSurvives() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        // Nothing is queued: the cursor read is the round's probe (S25).
        h.network.enqueue(.transport("down"), for: .getLatestCursor)
        // S85: forceFullResync() sets a stored flag; the next round bootstraps even after a crash or a failed…
        #expect(await h.engine.forceFullResync().outcome.name == "offline")
        #expect(try h.engineState().bootstrapRequested)

        let restarted = SyncEngine(
            networkClient: h.network, dataStoreFactory: h.stores, hashing: CryptoSHA256(), clock: h.clock)
        h.network.resetCalls()
        #expect(await restarted.performSync().outcome == .synced(bootstrapped: true))
        #expect(try !h.engineState().bootstrapRequested)
    }

    @Test("S85 skipToLatestCursor stores the server's latest cursor even with pending mutations")
    func skipToLatest() async throws {
        let (a, _) = try await devicesWithDivergedData()
        _ = try await a.events.createEventType(name: "Pending")
        let latest = a.model.latestCursor(user: a.network.userId)
        // S85: forceFullResync() sets a stored flag; the next round bootstraps even after a crash or a failed…
        #expect(try await a.engine.skipToLatestCursor() == latest)
        #expect(try a.engineState().cursor == latest && a.queue().count == 1)
        #expect(try a.events.eventTypes().map(\.name).contains("Renamed on b") == false, "nothing was pulled")
    }
}
