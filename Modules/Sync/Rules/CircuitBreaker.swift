import Foundation
import Models

/// The push circuit breaker and the quiet period (sync-engine §6.1), as rules on the persisted `EngineState`.
enum CircuitBreaker {
    enum Status: Equatable {
        case closed
        case open(until: Date)
        /// The backoff has passed: the next push request is a probe.
        case halfOpen
    }

    static func status(_ state: EngineState, now: Date) -> Status {
        guard let until = state.breakerBackoffUntil else { return .closed }
        return until > now ? .open(until: until) : .halfOpen
    }

    /// Seconds of backoff left (0 when not open).
    static func backoffRemaining(_ state: EngineState, now: Date) -> TimeInterval {
        max(0, state.breakerBackoffUntil.map { $0.timeIntervalSince(now) } ?? 0)
    }

    /// Seconds of quiet period left.
    static func quietRemaining(_ state: EngineState, now: Date) -> TimeInterval {
        max(0, state.quietUntil.map { $0.timeIntervalSince(now) } ?? 0)
    }

    /// A push answered 429: one more on the counter, the hint raised to its `Retry-After`.
    static func count429(_ state: inout EngineState, retryAfter: TimeInterval?) {
        state.breakerConsecutive429 += 1
        if let retryAfter { state.breakerRetryAfterHint = max(state.breakerRetryAfterHint ?? 0, retryAfter) }
    }

    /// A push answer classified as success, duplicate, alreadyGone, gone or failure: counter 0, hint cleared, a
    /// half-open breaker closed; a 2xx also resets the multiplier.
    static func reset(_ state: inout EngineState, success: Bool) {
        state.breakerConsecutive429 = 0
        state.breakerRetryAfterHint = nil
        state.breakerBackoffUntil = nil
        if success { state.breakerMultiplier = 1.0 }
    }

    /// Trips the breaker; returns the backoff in seconds. Successive trips without a 2xx and without
    /// `Retry-After` give 30, 60, 120, 240, 300, 300 s with the defaults.
    @discardableResult
    static func trip(_ state: inout EngineState, now: Date, configuration: SyncConfiguration) -> TimeInterval {
        let escalated = min(configuration.baseBackoff * state.breakerMultiplier, configuration.maxBackoff)
        let requested = min(state.breakerRetryAfterHint ?? 0, configuration.retryAfterCap)
        let backoff = max(escalated, requested)
        state.breakerBackoffUntil = now.addingTimeInterval(backoff)
        state.breakerMultiplier = min(
            state.breakerMultiplier * SyncConfiguration.multiplierFactor, SyncConfiguration.multiplierCap)
        state.breakerConsecutive429 = 0
        state.breakerRetryAfterHint = nil
        return backoff
    }

    /// A 429 carrying `Retry-After: R` (R > 0): nothing is sent before `now + min(R, cap)`.
    static func beginQuietPeriod(_ state: inout EngineState, retryAfter: TimeInterval, now: Date, cap: TimeInterval) {
        guard retryAfter > 0 else { return }
        let until = now.addingTimeInterval(min(retryAfter, cap))
        state.quietUntil = max(state.quietUntil ?? until, until)
    }

    /// `resetCircuitBreaker()`: counter, hint, backoff and quiet period cleared; the multiplier kept.
    static func manualReset(_ state: inout EngineState) {
        state.breakerConsecutive429 = 0
        state.breakerRetryAfterHint = nil
        state.breakerBackoffUntil = nil
        state.quietUntil = nil
    }
}
