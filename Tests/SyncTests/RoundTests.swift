import Foundation
import Hashing
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Round: gate, health check, capture, completion")
struct RoundTests {
    /// The published state after a health check (or a probe standing in for it) failed with `outcome` (S26).
    static func stateAfterFailedHealthCheck(_ outcome: String, pending: Int) -> SyncState {
        switch outcome {
        case "auth_required": .authRequired
        case "rate_limited": .rateLimited(retryAfter: 0, pending: pending)
        default: .offline
        }
    }

    @Test("S25 a round with something to push starts with GET /event-types; an empty list passes and bootstraps")
    func healthCheckFirst() async throws {
        let h = try SyncHarness()
        _ = try await h.events.createEventType(name: "Tea")
        let report = await h.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: true))
        // S25: A round that has live mutations to push starts with GET /api/v1/event-types; an empty list passes. A…
        #expect(h.network.calls.first?.method == .getEventTypes)
        #expect(h.network.calls.dropFirst().first?.method == .createEventTypeWithIdempotency)
        #expect(try h.engineState().cursor == 1)
    }

    @Test("S25 a round with nothing to push sends no health check: a no-op incremental sync is one request")
    func noOpSyncIsOneRequest() async throws {
        let h = try SyncHarness(configuration: .throughput())
        let first = await h.engine.performSync()
        #expect(first.outcome == .synced(bootstrapped: true))
        #expect(h.network.calls.first?.method == .getLatestCursor, "the bootstrap's cursor read is the probe")
        #expect(h.network.callCount(.getEventTypes) == 1, "the snapshot's own type list, not a health check")
        _ = try await h.syncedType()
        h.network.resetCalls()

        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        // S25: …A round with nothing to push sends no health check: its first feed page… So a no-op incremental sync…
        #expect(h.network.calls.map(\.method) == [.getChanges])
        #expect(try h.history().first?.outcome == "synced", "a probe that answered is a round like any other")
    }

    @Test(
        "S25 S26 a failed probe of a round with nothing to push ends as a failed health check",
        arguments: [
            (NetworkError.transport("connection refused"), "offline"), (http(401), "auth_required"),
            (http(429), "rate_limited"), (http(503), "offline"),
        ])
    func failedProbe(error: NetworkError, outcome: String) async throws {
        for bootstrapping in [false, true] {
            // A configured server root: the binding (sync-engine §1.9) is first contact, which a failed probe is not.
            let root = try #require(ServerRoot("http://127.0.0.1:8080"))
            let h = try SyncHarness(configuration: try SyncConfiguration(serverRoot: root))
            if !bootstrapping { _ = try await h.syncedType() }  // a fresh database bootstraps (cursor 0)
            let (queue, state, history) = (try h.queue(), try h.engineState(), try h.history())
            h.network.resetCalls()
            let probe: MockNetworkClient.Method = bootstrapping ? .getLatestCursor : .getChanges
            h.network.enqueue(error, for: probe)

            let report = await h.engine.performSync()
            #expect(report.outcome.name == outcome)
            // S25: …a failure of that request is classified and handled exactly as a failed health check (S26).
            #expect(h.network.calls.map(\.method) == [probe], "nothing is sent after the failed probe")
            #expect(try h.queue() == queue && h.engineState() == state && h.history() == history)
            #expect(await h.engine.snapshot.state == Self.stateAfterFailedHealthCheck(outcome, pending: 0))
        }
    }

    @Test(
        "S26 a failed health check sends nothing else, writes no history, changes no queue row or cursor",
        arguments: [
            (NetworkError.transport("connection refused"), "offline"), (http(401), "auth_required"),
            (http(429), "rate_limited"), (http(503), "offline"),
            (NetworkError.decoding(status: 200, message: "not JSON"), "offline"),
        ])
    func failedHealthCheck(error: NetworkError, outcome: String) async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        _ = try await h.events.deleteEventType(id: type.id)
        let (queue, state, history) = (try h.queue(), try h.engineState(), try h.history())
        h.network.resetCalls()
        h.network.enqueue(error, for: .getEventTypes)

        let report = await h.engine.performSync()
        #expect(report.outcome.name == outcome)
        #expect(h.network.calls.map(\.method) == [.getEventTypes])
        // S26: A failed health check sends no push or pull request, adds no history row and changes no queue row or…
        #expect(try h.queue() == queue && h.engineState() == state && h.history() == history)
        #expect(await h.engine.snapshot.state == Self.stateAfterFailedHealthCheck(outcome, pending: 1))
    }

    @Test("S27 before the first push request, pending_delete_ids is the stored set plus every queued delete")
    func pendingDeletesCapturedFirst() async throws {
        let h = try SyncHarness()
        let kept = try await h.syncedType("Kept")
        let gone = try await h.events.createEventType(name: "Gone")
        let deadGone = try await h.events.createEventType(name: "Dead gone")
        _ = await h.engine.performSync()
        try await h.events.deleteEventType(id: gone.id)
        try await h.events.deleteEventType(id: deadGone.id)
        try h.updateEngineState { $0.pendingDeleteIds = ["left-from-a-crash"] }
        let gate = h.network.hold(.deleteEventType)

        let sync = Task { await h.engine.performSync() }
        await gate.waitForArrivals(1)
        #expect(try h.engineState().pendingDeleteIds == ["left-from-a-crash", gone.id, deadGone.id])
        gate.release()
        #expect(await sync.value.outcome == .synced(bootstrapped: false))
        // S27: Before the first push request, the stored pending_delete_ids equals the previous stored set united…
        #expect(try h.engineState().pendingDeleteIds.isEmpty, "S86 a completed pull clears them")
        #expect(h.serverEventTypes.map(\.id) == [kept.id])
    }

    @Test("S18 a configured server root different from the stored one sends nothing and fails")
    func serverMismatch() async throws {
        let first = try #require(ServerRoot("http://127.0.0.1:8080"))
        let other = try #require(ServerRoot("http://127.0.0.1:9090"))
        let h = try SyncHarness(configuration: .standard(serverRoot: first))
        _ = await h.engine.performSync()
        #expect(try h.engineState().serverRoot == first.text, "S17 the first contact stores the root")

        let moved = SyncEngine(
            networkClient: h.network, dataStoreFactory: h.stores, hashing: CryptoSHA256(), clock: h.clock,
            configuration: .standard(serverRoot: other))
        let historyBefore = try h.history().count
        h.network.resetCalls()
        let report = await moved.performSync()
        guard case .error(let message) = report.outcome else {
            Issue.record("expected an error, got \(report.outcome)")
            return
        }
        #expect(message.contains(first.text) && message.contains(other.text))
        #expect(h.network.totalCallCount == 0)
        #expect(try h.history().count == historyBefore)
        // S18: With a configured server root different from the stored one, no request is sent and the operation fails.
        #expect(try h.engineState().serverRoot == first.text)
    }

    @Test(
        "sync-engine §1.9 a health check answered for another account ends the round with an error; nothing is pushed")
    func accountMismatch() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "x" }
        try h.updateEngineState { $0.accountUserId = "0190aaaa-0000-7000-8000-000000000000" }
        let report = await h.engine.performSync()
        guard case .error(let message) = report.outcome else {
            Issue.record("expected an error, got \(report.outcome)")
            return
        }
        #expect(message.contains("0190aaaa-0000-7000-8000-000000000000"))
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 0)
        #expect(try h.queue().first?.attempts == 0)
        #expect(try h.history().first?.outcome == "error")
    }

    @Test("S19 each round past the health check adds one history row with its counters; only 100 are kept")
    func historyRows() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        try await h.event(type, 1)
        try await h.event(type, 2)
        h.clock.advance(by: 5)
        _ = await h.engine.performSync()
        let row = try #require(try h.history().first)
        #expect(row.kind == .incremental && row.status == .success && row.outcome == "synced")
        #expect(row.pushed == 2 && row.failed == 0 && row.deadLettered == 0 && row.deferred == 0)
        #expect(row.pulled == 2, "the two events came back through the change feed")
        #expect(row.startedAt == h.clock.now() && row.durationMs == 0)

        h.network.enqueue(.transport("down"), for: .getChanges)
        _ = await h.engine.performSync()
        // S19: Every round that passed the health check adds exactly one history row; rounds stopped before it add…
        #expect(try h.history().count == 2, "a round stopped at the health check adds none")

        for _ in 0..<100 { _ = await h.engine.performSync() }
        let rows = try h.history()
        #expect(rows.count == 100)
        #expect(!rows.contains { $0.id == row.id }, "the oldest rows were dropped")
    }

    @Test("S86 synced and partial set last_success_at and idle; error publishes error(message), keeps last_success_at")
    func completion() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let firstSuccess = try #require(try h.engineState().lastSuccessAt)
        #expect(await h.engine.snapshot.state == .idle)

        h.clock.advance(by: 60)
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "x" }
        h.network.enqueue(http(500), for: .updateEventTypeWithIdempotency)
        #expect(await h.engine.performSync().outcome == .partial(bootstrapped: false))
        #expect(try h.engineState().lastSuccessAt == firstSuccess.addingTimeInterval(60))
        #expect(await h.engine.snapshot.state == .idle)

        h.clock.advance(by: 60)
        h.network.enqueue(http(500, message: "feed broken"), for: .getChanges)
        let report = await h.engine.performSync()
        guard case .error(let message) = report.outcome else {
            Issue.record("expected an error, got \(report.outcome)")
            return
        }
        #expect(message.contains("feed broken"))
        #expect(await h.engine.snapshot.state == .error(message))
        // S86: A round ending synced or partial publishes idle, sets last_success_at, and clears pending_delete_ids…
        #expect(try h.engineState().lastSuccessAt == firstSuccess.addingTimeInterval(60))
        #expect(try h.history().first?.status == .failed)
    }
}
