import Foundation
import Synchronization

/// Failed authentication, throttled per client address (docs/security.md): each 401 takes a token from the
/// address's bucket (capacity N, refilled at N a minute); once it is empty, a request from that address whose token
/// does not authenticate gets 429 with `Retry-After` instead of 401. A request whose token does authenticate is
/// never throttled here, so failures sent from the same address (a shared NAT, a proxy, a hostile neighbour) cannot
/// lock the real user out; guessing is hopeless anyway (static tokens should carry 128 random bits, JWT signatures
/// 256), so the throttle is about the cost and noise of failed attempts, and about telling a broken client to stop.
final class AuthFailureThrottle: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    /// Failures an address may make at once, and a minute's refill.
    let capacity: Int
    /// Addresses tracked at most; beyond it, full buckets (nothing to remember) are dropped first.
    let maximumAddresses: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(failuresPerMinute: Int, maximumAddresses: Int = 100_000) {
        capacity = failuresPerMinute
        self.maximumAddresses = maximumAddresses
    }

    private var refillPerSecond: Double { Double(capacity) / 60 }

    /// Counts one failure of `address`; returns the seconds to wait when the address has none left, else nil (a
    /// plain 401).
    func recordFailure(of address: String, now: Date) -> Int? {
        buckets.withLock { buckets in
            if buckets[address] == nil && buckets.count >= maximumAddresses { forget(&buckets, now: now) }
            var bucket = buckets[address] ?? Bucket(tokens: Double(capacity), updatedAt: now)
            bucket.tokens = min(
                Double(capacity), bucket.tokens + max(0, now.timeIntervalSince(bucket.updatedAt)) * refillPerSecond)
            bucket.updatedAt = now
            defer { buckets[address] = bucket }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Addresses tracked now.
    var trackedAddresses: Int { buckets.withLock { $0.count } }

    /// Drops the buckets that have refilled (they hold no memory of failures), or, if none has, the oldest half.
    private func forget(_ buckets: inout [String: Bucket], now: Date) {
        let full = buckets.filter { _, bucket in
            bucket.tokens + now.timeIntervalSince(bucket.updatedAt) * refillPerSecond >= Double(capacity)
        }
        if !full.isEmpty {
            for address in full.keys { buckets[address] = nil }
            return
        }
        let oldest = buckets.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(buckets.count / 2)
        for (address, _) in oldest { buckets[address] = nil }
    }
}
