import Foundation

/// One row of sync history: a round that passed the health check (sync-engine §1.10). Its counters are `counts`,
/// read and written as members of the entry (`entry.pushed`).
@dynamicMemberLookup
public struct SyncHistoryEntry: Sendable, Hashable, Identifiable {
    /// What the round did to read the server's data.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// An incremental pull from the stored cursor.
        case incremental
        /// A full snapshot (sync-engine §5).
        case bootstrap
        /// A verification against the server's digest (sync-engine R10).
        case verify
    }

    /// How the round ended, in three words (`SyncOutcome.historyStatus`).
    public enum Status: String, Sendable, Hashable, Codable {
        /// `synced`.
        case success
        /// `partial` or `rate_limited`: something is left for a later round.
        case partial
        /// `offline`, `auth_required` or `error`.
        case failed
    }

    /// A UUIDv7 of the round's end, so ids sort as rounds finished.
    public var id: String
    /// When the round began, by the engine's clock.
    public var startedAt: Date
    /// When it ended.
    public var finishedAt: Date
    /// `finishedAt − startedAt`, in milliseconds.
    public var durationMs: Int
    /// What the round did to read the server's data.
    public var kind: Kind
    /// How it ended.
    public var status: Status
    /// The CLI name of the round's outcome (`synced`, `partial`, `rate_limited`, `offline`, `auth_required`, `error`).
    public var outcome: String
    /// The outcome's message, when it has one.
    public var message: String?
    /// What the round did.
    public var counts: SyncCounts

    /// A row as a round writes it.
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

    /// One counter of `counts`, as a member of the entry (`entry.pushed`).
    public subscript(dynamicMember path: WritableKeyPath<SyncCounts, Int>) -> Int {
        get { counts[keyPath: path] }
        set { counts[keyPath: path] = newValue }
    }
}
