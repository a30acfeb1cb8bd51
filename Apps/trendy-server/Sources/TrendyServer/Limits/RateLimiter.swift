import Foundation
import Synchronization

/// One token bucket per user: capacity N, refilled continuously at N per 60 s (api-v1 §9).
final class RateLimiter: Sendable {
    struct Decision {
        var allowed: Bool
        /// Whole tokens left after this request (0 when refused).
        var remaining: Int
        /// Seconds until the bucket is full again, rounded up.
        var resetSeconds: Int
        /// Seconds until one token is available, rounded up and at least 1 (refusals only).
        var retryAfterSeconds: Int
    }

    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    let capacity: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(requestsPerMinute: Int) {
        capacity = requestsPerMinute
    }

    private var refillPerSecond: Double { Double(capacity) / 60 }

    /// Takes one token from `user`'s bucket if one is available; a refused request takes nothing.
    func take(for user: String, now: Date) -> Decision {
        buckets.withLock { buckets in
            var bucket = buckets[user] ?? Bucket(tokens: Double(capacity), updatedAt: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
            bucket.tokens = min(Double(capacity), bucket.tokens + elapsed * refillPerSecond)
            bucket.updatedAt = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[user] = bucket
            let missing = Double(capacity) - bucket.tokens
            return Decision(
                allowed: allowed,
                remaining: allowed ? Int(bucket.tokens.rounded(.down)) : 0,
                resetSeconds: Int((missing / refillPerSecond).rounded(.up)),
                retryAfterSeconds: max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up))))
        }
    }
}

/// Chooses injected faults per request with a seeded generator, so a seed replays the same choices (api-v1 §11).
final class FaultInjector: Sendable {
    enum Fault: Equatable {
        case rateLimited
        case internalError
        /// Complete the request, then close the connection without answering.
        case drop
    }

    struct Choice {
        var fault: Fault?
        var delayMilliseconds: Int
    }

    let configuration: FaultConfiguration
    private let generator: Mutex<SplitMix64>
    private let scripted: (@Sendable (String, String) -> ServerConfiguration.ScriptedFault?)?

    init(
        configuration: FaultConfiguration,
        scripted: (@Sendable (String, String) -> ServerConfiguration.ScriptedFault?)? = nil
    ) {
        self.configuration = configuration
        self.scripted = scripted
        generator = Mutex(SplitMix64(seed: configuration.seed ?? UInt64.random(in: .min ... .max)))
    }

    /// A test's scripted fault for the request (method, path) when it names one, otherwise `choose(isWrite:)`.
    func choose(method: String, path: String, isWrite: Bool) -> Choice {
        if let suffix = configuration.failingPathSuffix, path.hasSuffix(suffix) {
            return Choice(fault: .internalError, delayMilliseconds: 0)
        }
        return switch scripted?(method, path) {
        case .internalError?: Choice(fault: .internalError, delayMilliseconds: 0)
        case .drop?: Choice(fault: isWrite ? .drop : nil, delayMilliseconds: 0)
        case nil: choose(isWrite: isWrite)
        }
    }

    /// Whether to cut a change stream in the middle of the batch it is about to send (`--fault-stream-cut`).
    func cutsStream() -> Bool {
        guard configuration.probabilityStreamCut > 0 else { return false }
        return generator.withLock { $0.nextUnit() < configuration.probabilityStreamCut }
    }

    /// Draws in a fixed order (429, 500, drop, delay) so that a seed gives the same sequence of choices.
    func choose(isWrite: Bool) -> Choice {
        generator.withLock { random in
            let draws = (random.nextUnit(), random.nextUnit(), random.nextUnit(), random.nextUnit())
            var fault: Fault?
            if draws.0 < configuration.probability429 {
                fault = .rateLimited
            } else if draws.1 < configuration.probability500 {
                fault = .internalError
            } else if isWrite, draws.2 < configuration.probabilityDrop {
                fault = .drop
            }
            let delay = draws.3 < configuration.probabilityDelay ? configuration.delayMilliseconds : 0
            return Choice(fault: fault, delayMilliseconds: delay)
        }
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A uniform double in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
