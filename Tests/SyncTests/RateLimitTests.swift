import Foundation
import Hashing
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Rate limiting: breaker and quiet period")
struct RateLimitTests {
    /// A harness with a synced type and one pending update of it.
    func withPendingUpdate(_ h: SyncHarness) async throws -> EventType {
        let type = try await h.syncedType()
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "wait" }
        return type
    }

    @Test("S55 S56 each push 429 adds 1 to the counter, never an attempt; the fourth round trips before sending")
    func tripAtBoundary() async throws {
        let h = try SyncHarness()
        _ = try await withPendingUpdate(h)
        for round in 1...3 {
            h.network.enqueue(http(429), for: .updateEventTypeWithIdempotency)
            #expect(await h.engine.performSync().outcome.name == "partial")
            // S55: A push 429 adds 1 to the breaker counter and never to attempts.
            #expect(try h.engineState().breakerConsecutive429 == round && h.queue().first?.attempts == 0)
        }
        let sent = h.network.callCount(.updateEventTypeWithIdempotency)
        let report = await h.engine.performSync()
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == sent, "tripped before sending")
        // S56: The breaker trips at the unit boundary after the counter reaches the threshold, not on the third 429…
        #expect(report.outcome == .rateLimited(retryAfter: 30) && report.deferred == 1)
        let state = try h.engineState()
        #expect(state.breakerConsecutive429 == 0 && state.breakerBackoffUntil == h.clock.now().addingTimeInterval(30))
        #expect(state.breakerMultiplier == 2)
    }

    @Test(
        "S57 S60 trips without a 2xx back off 30, 60, 120, 240, 300, 300 s; each half-open probe answered 429 trips again"
    )
    func escalation() async throws {
        let h = try SyncHarness(configuration: try SyncConfiguration(breakerThreshold: 1))
        _ = try await withPendingUpdate(h)
        h.network.setStickyError(http(429), for: .updateEventTypeWithIdempotency)
        _ = await h.engine.performSync()
        var backoffs: [TimeInterval] = []
        for _ in 0..<6 {
            let report = await h.engine.performSync()
            guard case .rateLimited(let seconds) = report.outcome else {
                Issue.record("\(report)")
                return
            }
            backoffs.append(seconds)
            h.clock.advance(by: seconds)
        }
        // S60: A trip resets the counter; after the backoff the first push request is a probe: a 429 trips again at…
        #expect(backoffs == [30, 60, 120, 240, 300, 300])
        // S57: Successive trips without a 2xx in between, and without Retry-After, back off 30, 60, 120, 240, 300…
        #expect(
            h.network.callCount(.updateEventTypeWithIdempotency) == 6,
            "the first send, then one probe per half-open round")
    }

    @Test("S60 a half-open probe that succeeds closes the breaker; S59 a 2xx resets the multiplier")
    func probeCloses() async throws {
        let h = try SyncHarness(configuration: try SyncConfiguration(breakerThreshold: 1))
        _ = try await withPendingUpdate(h)
        h.network.enqueue(http(429), for: .updateEventTypeWithIdempotency)
        _ = await h.engine.performSync()
        _ = await h.engine.performSync()
        #expect(try h.engineState().breakerBackoffUntil != nil && h.engineState().breakerMultiplier == 2)
        h.clock.advance(by: 31)
        #expect(await h.engine.performSync().outcome.name == "synced")
        let state = try h.engineState()
        // S59: A push answer classified as success, duplicate, alreadyGone, gone or failure resets the counter; a 2xx…
        // S60: A trip resets the counter; after the backoff the first push request is a probe: a 429 trips again at…
        #expect(state.breakerBackoffUntil == nil && state.breakerMultiplier == 1 && state.breakerConsecutive429 == 0)
    }

    @Test(
        "S59 a counted failure resets the counter but keeps the multiplier; 401, in-flight and transport change nothing"
    )
    func resetRules() async throws {
        let h = try SyncHarness()
        _ = try await withPendingUpdate(h)
        try h.updateEngineState {
            $0.breakerConsecutive429 = 2
            $0.breakerMultiplier = 4
            $0.breakerRetryAfterHint = 5
        }
        for unchanged in [http(401), http(409, "idempotency_in_flight"), NetworkError.transport("x")] {
            h.network.enqueue(unchanged, for: .updateEventTypeWithIdempotency)
            _ = await h.engine.performSync()
            #expect(try h.engineState().breakerConsecutive429 == 2)
        }
        h.network.enqueue(http(500), for: .updateEventTypeWithIdempotency)
        _ = await h.engine.performSync()
        let state = try h.engineState()
        // S59: A push answer classified as success, duplicate, alreadyGone, gone or failure resets the counter; a 2xx…
        #expect(state.breakerConsecutive429 == 0 && state.breakerRetryAfterHint == nil && state.breakerMultiplier == 4)
    }

    /// A batch answer in which every item failed validation, with the given HTTP status.
    func everyItemFailed(_ events: [Event], status: Int) -> BatchCreateEventsResponse {
        BatchCreateEventsResponse(
            created: [],
            errors: events.indices.map {
                BatchEventError(index: $0, message: "timestamp is required", type: "validation")
            },
            total: events.count, success: 0, failed: events.count, httpStatus: status)
    }

    @Test(
        "S59 a batch answered 207 with every item failed is a 2xx: the multiplier resets; the same body under 400 keeps it",
        arguments: [(207, 1.0), (400, 4.0)])
    func batchStatusClass(status: Int, multiplierAfter: Double) async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let events = [try await h.event(type, 1), try await h.event(type, 2)]
        try h.updateEngineState {
            $0.breakerConsecutive429 = 2
            $0.breakerMultiplier = 4
        }
        h.network.enqueue(everyItemFailed(events, status: status), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        let state = try h.engineState()
        #expect(state.breakerConsecutive429 == 0, "S59 a counted answer resets the counter")
        #expect(
            state.breakerMultiplier == multiplierAfter,
            "S59 the multiplier follows the HTTP status class (\(status)), not the body")
        #expect(try h.queue().allSatisfy { $0.attempts == 1 }, "every item failed once")
    }

    @Test(
        "S61 an open breaker: no push request, the pull still runs, rateLimited(remaining, pending), a partial history row"
    )
    func openBreaker() async throws {
        let h = try SyncHarness()
        _ = try await withPendingUpdate(h)
        try h.updateEngineState { $0.breakerBackoffUntil = h.clock.now().addingTimeInterval(100) }
        h.clock.advance(by: 40)
        h.network.resetCalls()
        let report = await h.engine.performSync()
        #expect(report.outcome == .rateLimited(retryAfter: 60) && report.deferred == 1)
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 0 && h.network.getChangesCallCount == 1)
        #expect(await h.engine.snapshot.state == .rateLimited(retryAfter: 60, pending: 1))
        // S61: While the breaker is open, a round with live mutations sends no push request, still pulls, ends in…
        #expect(try h.history().first.map { $0.status == .partial && $0.outcome == "rate_limited" } == true)
    }

    @Test("S62 with an empty queue the breaker is ignored and the round can end synced")
    func emptyQueueIgnoresBreaker() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        try h.updateEngineState { $0.breakerBackoffUntil = h.clock.now().addingTimeInterval(100) }
        // S62: A round with an empty queue ignores the breaker and can end synced.
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
    }

    @Test("S63 a 429 with Retry-After stops the round and saves quiet_until; until then no operation sends a request")
    func quietPeriod() async throws {
        let h = try SyncHarness()
        _ = try await withPendingUpdate(h)
        h.network.enqueue(http(429, retryAfter: 120), for: .updateEventTypeWithIdempotency)
        h.network.resetCalls()
        let report = await h.engine.performSync()
        #expect(report.outcome == .rateLimited(retryAfter: 120) && h.network.getChangesCallCount == 0)
        #expect(try h.engineState().quietUntil == h.clock.now().addingTimeInterval(120))
        h.clock.advance(by: 60)
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .rateLimited(retryAfter: 60))
        await #expect(throws: SyncEngineError.quietPeriod(remaining: 60)) { try await h.engine.skipToLatestCursor() }
        await #expect(throws: SyncEngineError.quietPeriod(remaining: 60)) { try await h.engine.syncGeofences() }
        #expect(h.network.totalCallCount == 0)
        // S63: A 429 with Retry-After stops the round and saves quiet_until; until then no request is sent by any…
        #expect(await h.engine.snapshot.retryAfterSeconds == 60)
        h.clock.advance(by: 60)
        #expect(await h.engine.performSync().outcome.name == "synced")
    }

    @Test("a 429 with Retry-After on the health check saves the quiet period and writes no history")
    func healthCheckQuietPeriod() async throws {
        for probe in [MockNetworkClient.Method.getEventTypes, .getLatestCursor] {
            let h = try SyncHarness()
            // With something queued the health check is GET /event-types; without, the cursor read probes (S25).
            if probe == .getEventTypes { _ = try await h.events.createEventType(name: "Tea") }
            h.network.enqueue(http(429, retryAfter: 30), for: probe)
            #expect(await h.engine.performSync().outcome == .rateLimited(retryAfter: 30))
            #expect(try h.engineState().quietUntil == h.clock.now().addingTimeInterval(30) && h.history().isEmpty)
        }
    }

    @Test("S65 resetCircuitBreaker clears counter, backoff and quiet period, keeps the multiplier, and sets idle")
    func manualReset() async throws {
        let h = try SyncHarness()
        _ = try await withPendingUpdate(h)
        h.network.enqueue(http(429, retryAfter: 500), for: .updateEventTypeWithIdempotency)
        _ = await h.engine.performSync()
        try h.updateEngineState {
            $0.breakerBackoffUntil = h.clock.now().addingTimeInterval(99)
            $0.breakerMultiplier = 8
        }
        #expect(try h.engineState().breakerConsecutive429 == 1 && h.engineState().breakerRetryAfterHint == 500)
        #expect(await h.engine.snapshot.state != .idle, "S65 starts from a state other than idle")
        await h.engine.resetCircuitBreaker()
        let state = try h.engineState()
        #expect(
            state.quietUntil == nil && state.breakerBackoffUntil == nil && state.breakerConsecutive429 == 0
                && state.breakerRetryAfterHint == nil,
            "S65 counter, hint, backoff and quiet period cleared")
        #expect(state.breakerMultiplier == 8, "S65 the multiplier is kept")
        #expect(await h.engine.snapshot.state == .idle, "S65 idle when no run is in progress")
        #expect(try await !h.engine.isCircuitBreakerTripped)
    }

    @Test("S66 S17 breaker and quiet period survive: a new engine on the same database honours them")
    func persistence() async throws {
        let h = try SyncHarness()
        _ = try await withPendingUpdate(h)
        try h.updateEngineState {
            $0.breakerBackoffUntil = h.clock.now().addingTimeInterval(90)
            $0.quietUntil = h.clock.now().addingTimeInterval(30)
        }
        let restarted = SyncEngine(
            networkClient: h.network, dataStoreFactory: h.stores, hashing: CryptoSHA256(), clock: h.clock)
        try await restarted.loadInitialState()
        #expect(try await restarted.isCircuitBreakerTripped)
        #expect(try await restarted.circuitBreakerBackoffRemaining == 90)
        let snapshot = await restarted.snapshot
        // S66: Breaker and quiet period are saved on every change; a new process on the same database honours them.
        #expect(snapshot.retryAfterSeconds == 90 && snapshot.breakerOpen)
        h.network.resetCalls()
        #expect(await restarted.performSync().outcome == .rateLimited(retryAfter: 30))
        #expect(h.network.totalCallCount == 0)
    }
}
