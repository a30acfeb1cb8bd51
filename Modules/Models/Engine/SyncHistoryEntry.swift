import Foundation

/// One row of sync history: a round that passed the health check (sync-engine §1.10).
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
    public var pushed: Int
    public var failed: Int
    public var deadLettered: Int
    public var deferred: Int
    public var pulled: Int
    public var fenced: Int

    public init(
        id: String,
        startedAt: Date,
        finishedAt: Date,
        durationMs: Int,
        kind: Kind,
        status: Status,
        outcome: String,
        message: String? = nil,
        pushed: Int = 0,
        failed: Int = 0,
        deadLettered: Int = 0,
        deferred: Int = 0,
        pulled: Int = 0,
        fenced: Int = 0
    ) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.durationMs = durationMs
        self.kind = kind
        self.status = status
        self.outcome = outcome
        self.message = message
        self.pushed = pushed
        self.failed = failed
        self.deadLettered = deadLettered
        self.deferred = deferred
        self.pulled = pulled
        self.fenced = fenced
    }
}
