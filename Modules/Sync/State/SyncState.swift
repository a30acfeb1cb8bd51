import Foundation
import Models

/// What the engine is doing, or how the last run ended (sync-engine §3.1).
public enum SyncState: Equatable, Sendable {
    /// No run under way; the last one, if any, completed (`synced` or `partial`) or was cancelled.
    case idle
    /// Pull, bootstrap or geofence refresh.
    case pulling
    /// The last run could not reach the server.
    case offline
    /// The last run was refused its credentials (401): sign in again.
    case authRequired
    /// Push in progress: outcomes recorded for `synced` of the `total` mutations of the push set.
    case syncing(synced: Int, total: Int)
    /// `retryAfter`: seconds left when the state was published.
    case rateLimited(retryAfter: TimeInterval, pending: Int)
    /// The last run ended on an error of another kind; the message says which.
    case error(String)

    /// True while a push or a pull is under way; the five other states are terminal.
    public var isSyncing: Bool {
        switch self {
        case .syncing, .pulling: true
        default: false
        }
    }

    /// The lowercase name used by `trendyctl status --json`.
    public var name: String {
        switch self {
        case .idle: "idle"
        case .pulling: "pulling"
        case .offline: "offline"
        case .authRequired: "auth_required"
        case .syncing: "syncing"
        case .rateLimited: "rate_limited"
        case .error: "error"
        }
    }
}

/// How a run ended (sync-engine §3.2). Precedence when several apply: error > authRequired > offline >
/// rateLimited > partial > synced.
public enum SyncOutcome: Equatable, Sendable {
    /// The pull or bootstrap completed, every push-set mutation completed, no dead letter exists.
    case synced(bootstrapped: Bool)
    /// The pull or bootstrap completed, but a push-set mutation is still live or dead, or a dead letter exists.
    case partial(bootstrapped: Bool)
    /// Cut or skipped by a 429, the quiet period or the breaker.
    case rateLimited(retryAfter: TimeInterval)
    /// A transport error, or a health check that failed other than with 401 or 429.
    case offline(String)
    /// A 401 that a refreshed token did not cure.
    case authRequired
    /// Anything else that ended the run: a store failure, a server error past its retries, an account mismatch.
    case error(String)

    /// The CLI's name (`trendyctl.md` §1.4).
    public var name: String {
        switch self {
        case .synced: "synced"
        case .partial: "partial"
        case .rateLimited: "rate_limited"
        case .offline: "offline"
        case .authRequired: "auth_required"
        case .error: "error"
        }
    }

    /// The CLI's exit code (sync-engine §3.2): 0, 5, 75, 75, 4, 1.
    public var exitCode: Int32 {
        switch self {
        case .synced: 0
        case .partial: 5
        case .rateLimited, .offline: 75
        case .authRequired: 4
        case .error: 1
        }
    }

    /// The `status` of the run's history row (sync-engine §1.10): `success`, `partial` or `failed`.
    public var historyStatus: SyncHistoryEntry.Status {
        switch self {
        case .synced: .success
        case .partial, .rateLimited: .partial
        case .offline, .authRequired, .error: .failed
        }
    }

    /// The round pushed and pulled: `synced`, or `partial` with changes left.
    var isCompleted: Bool {
        switch self {
        case .synced, .partial: true
        default: false
        }
    }

    /// True when the run ended complete after a bootstrap instead of an incremental pull.
    public var bootstrapped: Bool {
        switch self {
        case .synced(let bootstrapped), .partial(let bootstrapped): bootstrapped
        default: false
        }
    }

    /// What to tell the user about an outcome that is not `synced` or `partial`; nil for those two.
    public var message: String? {
        switch self {
        case .offline(let message), .error(let message): message
        case .rateLimited(let seconds): "rate limited; retry in \(Int(seconds.rounded(.up))) s"
        case .authRequired: "authentication required or rejected"
        case .synced, .partial: nil
        }
    }
}

/// The result of `performSync()`: counts summed over the rounds of the run (`counts`, read and written as members of
/// the report: `report.pushed`), sizes after the last round.
@dynamicMemberLookup
public struct SyncReport: Equatable, Sendable {
    /// How the run ended: its last round's outcome.
    public var outcome: SyncOutcome
    /// What the run's rounds did, summed.
    public var counts: SyncCounts
    /// Live mutations left in the queue after the last round.
    public var pending: Int
    /// Dead letters after the last round.
    public var deadLetters: Int
    /// Entities still owed a read-back after the last round (R4): each blocks `synced`.
    public var owed: Int
    /// The change-feed cursor after the last round.
    public var cursor: Int64
    /// The run's duration on the engine's clock, in milliseconds.
    public var durationMs: Int
    /// The outcome's message (`SyncOutcome.message`), or a word on what the run found.
    public var message: String?

    /// A report; a run fills it in.
    public init(
        outcome: SyncOutcome, counts: SyncCounts = SyncCounts(), pending: Int = 0, deadLetters: Int = 0, owed: Int = 0,
        cursor: Int64 = 0, durationMs: Int = 0, message: String? = nil
    ) {
        self.outcome = outcome
        self.counts = counts
        self.pending = pending
        self.deadLetters = deadLetters
        self.owed = owed
        self.cursor = cursor
        self.durationMs = durationMs
        self.message = message
    }

    /// One counter of `counts`, as a member of the report (`report.pushed`).
    public subscript(dynamicMember path: WritableKeyPath<SyncCounts, Int>) -> Int {
        get { counts[keyPath: path] }
        set { counts[keyPath: path] = newValue }
    }
}

/// Everything an observer needs, published on every change (sync-engine §3.5).
public struct SyncSnapshot: Equatable, Sendable {
    /// What the engine is doing, or how its last run ended.
    public var state: SyncState
    /// True while a run is under way (`performSync`, a verify, or live mode's round).
    public var isRunning: Bool
    /// Live mutations in the queue.
    public var pendingCount: Int
    /// Dead letters in the queue.
    public var deadLetterCount: Int
    /// The stored change-feed cursor.
    public var cursor: Int64
    /// When a run last ended `synced` or `partial`.
    public var lastSuccessAt: Date?
    /// The report of the last run that ended.
    public var lastReport: SyncReport?
    /// True while the circuit breaker holds pushes (sync-engine §6.1).
    public var breakerOpen: Bool
    /// Seconds: the longer of the quiet period and the breaker backoff still to wait.
    public var retryAfterSeconds: TimeInterval
    /// Rows received from the server by the run in progress: change-feed entries, and during a bootstrap the
    /// snapshot's rows as their pages arrive. Zero when no run is under way. For progress displays.
    public var pulledCount: Int
    /// Entities owed a read-back (R4): the next round reads each back once nothing is queued for it.
    public var owedCount: Int
    /// Live mode (R12): `off` unless `startLive()` runs.
    public var live: LiveState = .off

    /// A snapshot; the engine publishes its own.
    public init(
        state: SyncState = .idle, isRunning: Bool = false, pendingCount: Int = 0, deadLetterCount: Int = 0,
        cursor: Int64 = 0, lastSuccessAt: Date? = nil, lastReport: SyncReport? = nil, breakerOpen: Bool = false,
        retryAfterSeconds: TimeInterval = 0, pulledCount: Int = 0, owedCount: Int = 0, live: LiveState = .off
    ) {
        self.live = live
        self.state = state
        self.isRunning = isRunning
        self.pendingCount = pendingCount
        self.deadLetterCount = deadLetterCount
        self.cursor = cursor
        self.lastSuccessAt = lastSuccessAt
        self.lastReport = lastReport
        self.breakerOpen = breakerOpen
        self.retryAfterSeconds = retryAfterSeconds
        self.pulledCount = pulledCount
        self.owedCount = owedCount
    }
}

/// Where live mode stands (sync-engine R12).
public enum LiveState: String, Sendable, Hashable {
    /// Not in live mode.
    case off
    /// Opening the change stream.
    case connecting
    /// The stream is open: entries are applied as they arrive.
    case streaming
    /// No stream (the server has none, or holds too many of this user's): a round every poll interval.
    case polling
    /// Waiting before a reconnect or a round (backoff, quiet period).
    case waiting
}

/// What live mode did, for a caller that shows it (`trendyctl sync --watch`).
public enum LiveActivity: Sendable, Equatable {
    /// A round ran.
    case round(SyncReport)
    /// Stream entries applied in one unit of work: how many, the cursor after them, and how long after the
    /// server committed the newest of them it was applied (milliseconds; nil when the entries carry no time).
    case applied(changes: Int, cursor: Int64, latencyMs: Int?)
    /// Live mode ended on its own: the server refused the credentials (R12: a 401 ends live mode).
    case ended(SyncOutcome)
    /// Live mode fell back to a round every poll interval (R12): the server has no stream, or holds as many of this
    /// user's streams as it allows. Said once when the fallback begins.
    case polling(LivePollReason)
    /// The stream is open again after a fallback to polling: changes arrive as they are made.
    case streaming
}

/// Why live mode polls instead of streaming (R12).
public enum LivePollReason: Sendable, Equatable {
    /// The server has no change stream (404, or no `stream` feature): polling for good.
    case noStream
    /// 429 `stream_limit`: the stream is tried again after `retryAfter` seconds.
    case streamLimit(retryAfter: TimeInterval)
}

/// Failures of engine operations other than `performSync` (which reports instead of throwing).
public enum SyncEngineError: Error, Equatable, CustomStringConvertible {
    /// The server asked for a pause (`Retry-After`); nothing may be sent before it ends.
    case quietPeriod(remaining: TimeInterval)
    /// The database is bound to another server (sync-engine §1.9).
    case serverMismatch(configured: String, stored: String)
    /// Server data names another account than the one this database belongs to.
    case accountMismatch(expected: String, found: String)

    public var description: String {
        switch self {
        case .quietPeriod(let remaining):
            "the server asked for a pause; retry in \(Int(remaining.rounded(.up))) s"
        case .serverMismatch(let configured, let stored):
            "this database belongs to \(stored), not \(configured); use another database for that server"
        case .accountMismatch(let expected, let found):
            "the server returned data of account \(found), but this database belongs to \(expected)"
        }
    }
}
