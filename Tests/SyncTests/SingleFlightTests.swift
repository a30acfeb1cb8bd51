import Foundation
import Models
import Protocols
import TestSupport
import Testing

@testable import Sync

@Suite("Single flight and rerun")
struct SingleFlightTests {
    @Test("S20 S22 S24 five concurrent callers: one health check in flight, one extra round, one send per mutation")
    func fiveConcurrentCallers() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let created = [try await h.event(type, 1), try await h.event(type, 2), try await h.event(type, 3)]
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "cup" }
        let historyBefore = try h.history().count
        h.network.resetCalls()
        let gate = h.network.hold(.getEventTypes)

        let callers = (0..<5).map { _ in Task { await h.engine.performSync() } }
        await gate.waitForArrivals(1)
        try await h.waitForJoiners(4)
        #expect(gate.arrivals == 1, "the other four joined the run instead of sending a health check")
        gate.release()
        var reports: [SyncReport] = []
        for caller in callers { reports.append(await caller.value) }

        // S24: A mutation is never sent twice in one run unless a newer revision of it was queued meanwhile.
        #expect(reports.allSatisfy { $0 == reports[0] }, "every caller gets the report of the run")
        #expect(reports[0].outcome == .synced(bootstrapped: false) && reports[0].pushed == 4)
        // S20: The in-progress mark is taken before the first await: with N concurrent performSync() calls, exactly…
        // S22: Any number of calls during a round cause exactly one extra round; all callers get the same report.
        #expect(h.network.callCount(.getChanges) == 2, "the first round and exactly one extra round")
        #expect(h.network.callCount(.getEventTypes) == 1, "S25 the extra round has nothing to push: no health check")
        #expect(try h.history().count == historyBefore + 2)
        let batches = h.network.calls(of: .createEventsBatchWithIdempotency)
        #expect(batches.flatMap { $0.body?["events"]?.arrayValue ?? [] }.count == created.count)
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 1)
        #expect(h.serverEvents.count == created.count)
    }

    @Test("S21 a call during a run sends no request, writes nothing, and returns that run's report")
    func joinerIsSilent() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        let gate = h.network.hold(.getChanges)
        let first = Task { await h.engine.performSync() }
        await gate.waitForArrivals(1)
        let saves = h.store.saveCallCount
        let requests = h.network.totalCallCount

        let second = Task { await h.engine.performSync() }
        try await h.waitForJoiners(1)
        // S21: A call made while a run is in progress sends no request, writes nothing, and returns the report of…
        #expect(h.store.saveCallCount == saves && h.network.totalCallCount == requests)
        #expect(await h.engine.snapshot.isRunning)
        gate.release()
        let (firstReport, secondReport) = (await first.value, await second.value)
        #expect(firstReport == secondReport)
        #expect(await h.engine.snapshot.isRunning == false)
    }

    @Test("S23 the extra round passes the gate first: in a quiet period it ends rateLimited without a request")
    func extraRoundHonoursQuietPeriod() async throws {
        let h = try SyncHarness()
        let historyBefore = try await h.editHeld(failingWith: http(429, retryAfter: 60))
        let (report, joined) = try await h.syncJoinedOnce()
        #expect(joined == report)

        #expect(report.outcome == .rateLimited(retryAfter: 60))
        // S23: An extra round starts with the gate of sync-engine §4.2: during a quiet period it ends rateLimited
        // without sending…
        #expect(h.network.callCount(.getEventTypes) == 1, "the extra round stopped at the gate")
        #expect(h.network.totalCallCount == 2)
        #expect(try h.history().count == historyBefore + 1, "a round stopped at the gate writes no history")
    }

    @Test("S24 a mutation that failed in a round is not sent again by the extra round of the same run")
    func noSecondSendInOneRun() async throws {
        let h = try SyncHarness()
        _ = try await h.editHeld(failingWith: http(500))
        let (report, _) = try await h.syncJoinedOnce()

        #expect(h.network.callCount(.getEventTypes) == 2, "an extra round ran")
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 1, "but did not resend the failed update")
        #expect(report.outcome == .partial(bootstrapped: false), "the failed update is still live")
        #expect(try h.queue().first?.attempts == 1)
        // S24: A mutation is never sent twice in one run unless a newer revision of it was queued meanwhile.
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false), "the next run sends it")
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 2)
    }

    @Test("S24 a newer revision queued during a run is sent by the extra round")
    func newerRevisionGoesOut() async throws {
        let h = try SyncHarness()
        let (type, gate, first) = try await h.syncHeldOnTypeUpdate { $0.name = "Version 1" }
        _ = try await h.events.updateEventType(id: type.id) { $0.name = "Version 2" }
        let second = Task { await h.engine.performSync() }
        try await h.waitForJoiners(1)
        gate.release()
        #expect(await first.value.outcome == .synced(bootstrapped: false))
        _ = await second.value
        let sent = h.network.calls(of: .updateEventTypeWithIdempotency).map { $0.body?["name"] }
        #expect(sent == ["Version 1", "Version 2"])
        #expect(h.serverEventTypes.first?.name == "Version 2")
        #expect(try h.queue().isEmpty)
    }
}

extension SyncHarness {
    /// A synced type edited locally, whose update the next sync sends into a held call that then fails with `error`.
    /// Returns the number of history rows before that sync.
    fileprivate func editHeld(failingWith error: NetworkError) async throws -> Int {
        let type = try await syncedType()
        _ = try await events.updateEventType(id: type.id) { $0.icon = "cup" }
        let historyBefore = try history().count
        network.resetCalls()
        network.enqueue(error, for: .updateEventTypeWithIdempotency)
        return historyBefore
    }

    /// A sync held at its update while a second caller joins it; the reports of both once the update is let go.
    fileprivate func syncJoinedOnce() async throws -> (first: SyncReport, joined: SyncReport) {
        let gate = network.hold(.updateEventTypeWithIdempotency)
        let first = Task { await engine.performSync() }
        await gate.waitForArrivals(1)
        let second = Task { await engine.performSync() }
        try await waitForJoiners(1)
        gate.release()
        return (await first.value, await second.value)
    }

    /// Returns once `count` callers have joined runs in progress: the engine records a join synchronously, so this
    /// settles as soon as the joining tasks have been scheduled. Fails the test (throws) if they never join.
    func waitForJoiners(_ count: Int) async throws {
        try await waitUntil("\(count) callers to join the run") { await engine.flight.joinedCallers >= count }
    }
}
