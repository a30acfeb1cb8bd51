import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

/// `verify()` (sync-engine R10): the device's digest against the server's, at one cursor, repairing what differs.
@Suite("Verify")
struct VerifyTests {
    /// A device with a type, two events, a geofence and a definition, synced.
    func syncedDevice() async throws -> (SyncHarness, EventType, [Event]) {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let first = try await h.event(type, 1) { $0.notes = "one" }
        let second = try await h.event(type, 2) { $0.properties = ["k": PropertyValue(type: .number, value: 1.5)] }
        _ = try await h.events.createGeofence(name: "Gym", latitude: 1, longitude: 2)
        _ = try await h.events.createPropertyDefinition(eventTypeId: type.id, key: "k", label: "K", type: .number)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        return (h, type, [first, second])
    }

    @Test("R10 a device equal to the server verifies with nothing repaired, in one history row of kind verify")
    func equalDevice() async throws {
        let (h, _, _) = try await syncedDevice()
        h.network.resetCalls()
        let report = await h.engine.verify()
        #expect(report.result == .verified(repaired: 0) && report.exitCode == 0)
        #expect(h.network.callCount(.getDigest) == 1 && h.network.callCount(.getDigestBucket) == 0)
        let history = try h.history()
        #expect(history.first?.kind == .verify && history.first?.outcome == "verified")
        #expect(history.dropFirst().first?.kind == .incremental, "the round it ran first")
    }

    @Test("R10 a row changed, removed or added behind the engine's back is found by bucket and read back")
    func tamperedRows() async throws {
        let (h, type, events) = try await syncedDevice()
        let store = h.stores.makeDataStore()
        _ = try store.upsertEvent(id: events[0].id) { $0.notes = "changed with sqlite3" }
        try store.deleteEvent(id: events[1].id)
        try store.insertEventType(Build.eventType(id: Build.id(777), name: "Stray", syncStatus: .synced))
        try store.save()

        let report = await h.engine.verify()
        #expect(report.result == .verified(repaired: 3))
        #expect(try h.events.event(id: events[0].id)?.notes == "one", "changed: the server's value again")
        #expect(try h.events.event(id: events[1].id)?.properties["k"]?.value == 1.5, "removed: back")
        #expect(try h.events.eventType(id: Build.id(777)) == nil, "added: gone, the server has no such type")
        #expect(try h.events.eventType(id: type.id) != nil)
        #expect(h.network.callCount(.getDigest) == 2, "compared again after the repair")
        #expect(try h.queue().isEmpty && h.owed().isEmpty)
        #expect(try h.history().first.map { $0.kind == .verify && $0.pulled == 3 } == true)
    }

    @Test(
        "R10 R15 a file copied back by hand lost an acknowledged edit whose pull failed: verify gives it back, also through 5xx and lost connections",
        arguments: [false, true])
    func verifyGivesBack(flakyLink: Bool) async throws {
        let (h, type, _) = try await syncedDevice()
        // The device's cursor still names a change both histories share, and no 410 will tell.
        try await h.acknowledgeThenLoseByHand(
            { _ = try await h.events.updateEventType(id: type.id) { $0.icon = "after the backup" } },
            restoring: h.model.backUp())
        try forgetPositionTime(h)
        if flakyLink {
            h.network.enqueue(http(500), for: .getDigestBucket)
            h.network.enqueue(http(503), for: .getDigestBucket)
            h.network.enqueue(.transport("connection reset"), for: .giveBack)
        }
        h.network.resetCalls()

        let report = await h.engine.verify()
        #expect(report.verified, "\(report.result)")
        #expect(report.sync.counts.givenBack == 1)
        if flakyLink {
            #expect(h.network.callCount(.giveBack) == 2, "tried again at once, in the same verify")
            #expect(h.network.callCount(.getDigestBucket) >= 3)
        }
        #expect(h.model.eventTypes(of: h.network.userId).first { $0.id == type.id }?.icon == "after the backup")
        #expect(try h.events.eventType(id: type.id)?.icon == "after the backup")
    }

    @Test("R10 queued work, a dead letter or a debt blocks verification and is named; nothing is read back")
    func blocked() async throws {
        let (h, type, events) = try await syncedDevice()
        let store = h.stores.makeDataStore()
        _ = try store.upsertEvent(id: events[0].id) { $0.notes = "changed with sqlite3" }
        try store.save()
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "queued" }
        h.network.setStickyError(http(503), for: .updateEventTypeWithIdempotency)
        h.network.resetCalls()
        let report = await h.engine.verify()
        #expect(report.result == .blocked([VerifyBlocker(entityType: .eventType, id: type.id, reason: .queued)]))
        #expect(report.exitCode == 5 && h.network.callCount(.getDigest) == 1, "compared once, for R15")
        #expect(try h.events.event(id: events[0].id)?.notes == "changed with sqlite3", "no read-back while blocked")
        #expect(h.model.events(of: h.network.userId).first { $0.id == events[0].id }?.notes == "one")
        #expect(try h.history().first.map { $0.kind == .verify && $0.outcome == "blocked" } == true)
    }

    @Test("R10 R15 a file copied back by hand, a device blocked by a dead letter: its verify gives back the rest")
    func blockedVerifyGivesBack() async throws {
        let (h, type, events) = try await syncedDevice()
        try await h.acknowledgeThenLoseByHand(
            { _ = try await h.events.updateEvent(id: events[0].id) { $0.notes = "after the backup" } },
            restoring: h.model.backUp())
        try forgetPositionTime(h)
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "refused" }
        h.network.setStickyError(http(400, message: "bad icon"), for: .updateEventTypeWithIdempotency)
        for _ in 0..<10 where try h.queue().first?.isDeadLetter != true { _ = await h.engine.performSync() }
        #expect(try h.queue().first?.isDeadLetter == true)

        let report = await h.engine.verify()
        #expect(report.result == .blocked([VerifyBlocker(entityType: .eventType, id: type.id, reason: .deadLetter)]))
        #expect(report.sync.counts.givenBack == 1)
        #expect(h.model.events(of: h.network.userId).first { $0.id == events[0].id }?.notes == "after the backup")
        #expect(try h.events.event(id: events[0].id)?.notes == "after the backup")
    }

    @Test(
        "R10 R15 a verify whose round finds a version missing at the feed's head reports it given back, though a pull of the verification ran another round after"
    )
    func verifyReportsTheRoundsGiveBack() async throws {
        let (h, type, _) = try await syncedDevice()
        try await h.acknowledgeThenLoseByHand(
            { _ = try await h.events.updateEventType(id: type.id) { $0.icon = "after the backup" } },
            restoring: h.model.backUp())
        h.network.resetCalls()

        let report = await h.engine.verify()
        #expect(report.verified, "\(report.result)")
        #expect(report.sync.counts.givenBack == 1, "the round's give-back, not only the last run's counts")
        #expect(h.network.callCount(.giveBack) == 1 && h.network.callCount(.getDigestBucket) == 0)
        #expect(h.model.eventTypes(of: h.network.userId).first { $0.id == type.id }?.icon == "after the backup")
    }

    /// A position without the time of its change, as a cursor an older client stored: no pull can tell that the
    /// feed went around a version acknowledged since (sync-engine R15), so only the verification finds it.
    private func forgetPositionTime(_ h: SyncHarness) throws {
        try h.updateEngineState { $0.position = FeedPosition(cursor: $0.cursor) }
    }

    @Test("R10 a server without the digest feature: unsupported, exit 1")
    func unsupported() async throws {
        let (h, _, _) = try await syncedDevice()
        h.network.announce(ServerFeatures([ServerFeatures.after]))
        let report = await h.engine.verify()
        #expect(report.result == .unsupported && report.exitCode == 1 && !report.verified)
    }

    @Test("R10 a digest above the stored cursor makes the device pull, then compare")
    func serverMovedOn() async throws {
        let (a, _, _) = try await syncedDevice()
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        let gate = a.network.hold(.getDigest)
        let verify = Task { await a.engine.verify() }
        await gate.waitForArrivals(1)
        let late = try await b.events.createEventType(name: "Written meanwhile")
        _ = await b.engine.performSync()
        a.network.stopHolding(.getDigest)
        gate.release()
        let report = await verify.value
        #expect(report.result == .verified(repaired: 0))
        #expect(try a.events.eventType(id: late.id) != nil, "pulled before comparing")
        #expect(a.network.callCount(.getDigest) == 2)
    }

    @Test("R10 no digest at the stored cursor in three reads: busy, exit 75")
    func busy() async throws {
        let (h, _, _) = try await syncedDevice()
        // The account keeps being written to: every digest is of a state the pull after it has not reached yet.
        var ahead = try await h.network.getDigest()
        ahead.cursor += 1000
        for _ in 0..<3 { h.network.enqueue(ahead, for: .getDigest) }
        h.network.resetCalls()
        let report = await h.engine.verify()
        #expect(report.result == .busy && report.exitCode == 75)
        #expect(h.network.callCount(.getDigest) == 3)
    }

    @Test("R10 a digest below the stored cursor twice: the server's history went back; a bootstrap, then verified")
    func serverWentBack() async throws {
        let (h, _, _) = try await syncedDevice()
        let stored = try h.engineState().cursor
        var behind = try await h.network.getDigest()
        behind.cursor = stored - 1
        for _ in 0..<2 { h.network.enqueue(behind, for: .getDigest) }
        h.network.resetCalls()
        let report = await h.engine.verify()
        #expect(report.result == .verified(repaired: 0), "\(report)")
        #expect(
            h.network.callCount(.getDigest) == 4,
            "read again once, once more by the bootstrap's give-back (R15), then compared after the bootstrap")
        #expect(try h.history().contains { $0.kind == .bootstrap }, "the device bootstrapped")
    }

    @Test("R10 a difference the read-back cannot repair is diverged, exit 6, the entity named")
    func diverged() async throws {
        let (h, _, events) = try await syncedDevice()
        let store = h.stores.makeDataStore()
        _ = try store.upsertEvent(id: events[0].id) { $0.notes = "tampered" }
        try store.save()
        h.network.setStickyError(http(500), for: .fetchEntity)
        let report = await h.engine.verify()
        #expect(report.result == .diverged(differing: ["event \(events[0].id)"], repaired: 0))
        #expect(report.exitCode == 6)
        #expect(try h.history().first.map { $0.outcome == "diverged" && $0.status == .failed } == true)
    }
}
