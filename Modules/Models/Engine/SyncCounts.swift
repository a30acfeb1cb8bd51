/// What sync rounds did, counted (sync-engine §1.10): the one definition of the counters that a round keeps, its
/// history row stores and a run's report sums over its rounds.
public struct SyncCounts: Sendable, Hashable {
    /// Mutations completed: acknowledged, dropped as a duplicate, or a delete of an entity the server no longer has.
    public var pushed = 0
    /// Counted failures (sync-engine §6.2).
    public var failed = 0
    /// Mutations that became dead letters.
    public var deadLettered = 0
    /// Push-set mutations not sent (breaker, quiet period, a stopped round, the sync-engine §4.4 gates): a later round
    /// sends them.
    public var deferred = 0
    /// Change-feed entries and snapshot rows applied.
    public var pulled = 0
    /// Change-feed entries and snapshot rows skipped by a fence (sync-engine §4.10).
    public var fenced = 0
    /// Entities and deletes a server that went back to a backup took back from this device (R15).
    public var givenBack = 0

    /// All zero; a round counts up from here.
    public init() {}

    /// Each counter's column in `sync_history` (sync-engine §1.10), in the table's order.
    public static let fields: [(key: String, path: any WritableKeyPath<SyncCounts, Int> & Sendable)] = [
        ("pushed", \.pushed), ("failed", \.failed), ("dead_lettered", \.deadLettered), ("deferred", \.deferred),
        ("pulled", \.pulled), ("fenced", \.fenced), ("given_back", \.givenBack),
    ]

    /// Adds `other`'s counts to `counts`, as a run sums its rounds.
    public static func += (counts: inout SyncCounts, other: SyncCounts) {
        for field in fields { counts[keyPath: field.path] += other[keyPath: field.path] }
    }
}
