import Foundation

/// One row of sync history: a round that passed the health check (sync-engine §1.10). Its counters are `counts`,
/// read and written as members of the entry (`entry.pushed`).
@dynamicMemberLookup
public struct SyncHistoryEntry: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case incremental
        case bootstrap
        /// A verification against the server's digest (sync-engine R10).
        case verify
    }

    public enum Status: String, Sendable, Hashable, Codable {
        case success
        case partial
        case failed
    }

    public var id: String
    public var startedAt: Date
    public var finishedAt: Date
    public var durationMs: Int
    public var kind: Kind
    public var status: Status
    /// The CLI name of the round's outcome (`synced`, `partial`, `rate_limited`, `offline`, `auth_required`, `error`).
    public var outcome: String
    public var message: String?
    public var counts: SyncCounts

    public init(
        id: String,
        startedAt: Date,
        finishedAt: Date,
        durationMs: Int,
        kind: Kind,
        status: Status,
        outcome: String,
        message: String? = nil,
        counts: SyncCounts = SyncCounts()
    ) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.durationMs = durationMs
        self.kind = kind
        self.status = status
        self.outcome = outcome
        self.message = message
        self.counts = counts
    }

    public subscript(dynamicMember path: WritableKeyPath<SyncCounts, Int>) -> Int {
        get { counts[keyPath: path] }
        set { counts[keyPath: path] = newValue }
    }
}
