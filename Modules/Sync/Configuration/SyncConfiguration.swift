import Foundation
import Models

/// The engine's constants (sync-engine §7), validated at init.
public struct SyncConfiguration: Sendable, Hashable {
    /// Event creates per batch request (1–500).
    public var batchSize: Int
    /// Change-feed page size (1–500).
    public var changeFeedPageSize: Int
    /// Events per page while bootstrapping (1–1000).
    public var bootstrapEventsPageSize: Int
    /// Counted failures before a mutation becomes a dead letter (1–100).
    public var maxAttempts: Int
    /// Consecutive push 429s that trip the breaker (1–100).
    public var breakerThreshold: Int
    /// Seconds; the first trip's backoff (1–3600).
    public var baseBackoff: TimeInterval
    /// Seconds; the longest backoff (`baseBackoff`–86 400).
    public var maxBackoff: TimeInterval
    /// Seconds; the largest `Retry-After` honoured (1–86 400).
    public var retryAfterCap: TimeInterval
    /// History rows kept (1–10 000).
    public var historyLimit: Int
    /// Seconds between geofence refreshes after incremental pulls (0–604 800; 0 = every round, sync-engine §7, S78).
    public var geofenceRefreshInterval: TimeInterval
    /// The server this database is bound to; nil skips the binding check (sync-engine §1.9).
    public var serverRoot: ServerRoot?
    /// Live mode (R12): the timings, sync-engine R14's constants by default.
    public var live = LiveTimings()

    /// Bootstrap snapshots taken at most while the latest cursor moves (sync-engine §5.2); fixed.
    public static let maximumSnapshots = 3
    /// Multiplier growth and cap (sync-engine §6.1); fixed.
    public static let multiplierFactor = 2.0
    /// The largest the multiplier grows to.
    public static let multiplierCap = 10.0
}

extension SyncConfiguration {
    /// The defaults of sync-engine §7, which are also the original app's constants.
    public init(
        batchSize: Int = 50,
        changeFeedPageSize: Int = 100,
        bootstrapEventsPageSize: Int = 50,
        maxAttempts: Int = 5,
        breakerThreshold: Int = 3,
        baseBackoff: TimeInterval = 30,
        maxBackoff: TimeInterval = 300,
        retryAfterCap: TimeInterval = 3600,
        historyLimit: Int = 100,
        geofenceRefreshInterval: TimeInterval = 0,
        serverRoot: ServerRoot? = nil
    ) throws(SyncConfigurationError) {
        try Self.check("batchSize", batchSize, in: 1...500)
        try Self.check("changeFeedPageSize", changeFeedPageSize, in: 1...500)
        try Self.check("bootstrapEventsPageSize", bootstrapEventsPageSize, in: 1...1000)
        try Self.check("maxAttempts", maxAttempts, in: 1...100)
        try Self.check("breakerThreshold", breakerThreshold, in: 1...100)
        try Self.check("historyLimit", historyLimit, in: 1...10_000)
        guard (1...3600).contains(baseBackoff) else { throw .outOfRange("baseBackoff", "1–3600 s") }
        guard (baseBackoff...86_400).contains(maxBackoff) else {
            throw .outOfRange("maxBackoff", "baseBackoff–86400 s")
        }
        guard (1...86_400).contains(retryAfterCap) else { throw .outOfRange("retryAfterCap", "1–86400 s") }
        guard (0...604_800).contains(geofenceRefreshInterval) else {
            throw .outOfRange("geofenceRefreshInterval", "0–604800 s")
        }
        // The memberwise init the compiler writes (internal): `live` named, so that no call can mean both.
        self.init(
            batchSize: batchSize, changeFeedPageSize: changeFeedPageSize,
            bootstrapEventsPageSize: bootstrapEventsPageSize,
            maxAttempts: maxAttempts, breakerThreshold: breakerThreshold, baseBackoff: baseBackoff,
            maxBackoff: maxBackoff, retryAfterCap: retryAfterCap, historyLimit: historyLimit,
            geofenceRefreshInterval: geofenceRefreshInterval, serverRoot: serverRoot, live: LiveTimings())
    }

    /// sync-engine §7 defaults, bound to `serverRoot` when given.
    public static func standard(serverRoot: ServerRoot? = nil) -> SyncConfiguration {
        do {
            return try SyncConfiguration(serverRoot: serverRoot)
        } catch {
            preconditionFailure("the defaults of SyncConfiguration.init are in range: \(error)")
        }
    }

    /// Larger units for throughput (trendyctl's choice): 500 events per batch, 500 changes per page, 1000 events
    /// per bootstrap page, geofences refreshed at most hourly (S78), the other constants as sync-engine §7. See
    /// docs/history/performance.md ("Sync against trendy-server") for the measured difference.
    public static func throughput(serverRoot: ServerRoot? = nil) -> SyncConfiguration {
        var configuration = standard(serverRoot: serverRoot)
        configuration.batchSize = 500
        configuration.changeFeedPageSize = 500
        configuration.bootstrapEventsPageSize = 1000
        configuration.geofenceRefreshInterval = 3600
        return configuration
    }

    private static func check(_ name: String, _ value: Int, in range: ClosedRange<Int>) throws(SyncConfigurationError) {
        guard range.contains(value) else {
            throw .outOfRange(name, "\(range.lowerBound)–\(range.upperBound)")
        }
    }
}

/// A configuration value that `SyncConfiguration` refuses.
public enum SyncConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The setting named first is outside the range given second.
    case outOfRange(String, String)

    public var description: String {
        switch self {
        case .outOfRange(let name, let range): "\(name) must be in \(range)"
        }
    }
}
