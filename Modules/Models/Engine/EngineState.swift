import Foundation

/// The engine's persisted state: one row in the same SQLite file as the data (sync-engine §1.9).
public struct EngineState: Sendable, Hashable {
    /// Change-feed position up to which local data reflects the server; 0 means "never synced".
    public var cursor: Int64
    /// The `created_at` of the change `cursor` names, as the server sent it; nil when not known (api-v1 §6.5).
    public var cursorCreatedAt: Date?
    /// Set by `forceFullResync` and by a 410: the next round bootstraps (sync-engine §5.1).
    public var bootstrapRequested: Bool
    /// Ids deleted locally whose deletion a completed pull has not yet followed (resurrection fence).
    public var pendingDeleteIds: Set<String>
    /// 429s in a row since the breaker last reset (sync-engine §6.1).
    public var breakerConsecutive429: Int
    /// Until when the open breaker holds pushes; nil while it is closed.
    public var breakerBackoffUntil: Date?
    /// The breaker's backoff multiplier: 1, doubled each time it opens again, up to its cap.
    public var breakerMultiplier: Double
    /// Seconds: the largest `Retry-After` counted since the last breaker reset.
    public var breakerRetryAfterHint: Double?
    /// Until when nothing may be sent: a `Retry-After` the server gave (sync-engine §6.1).
    public var quietUntil: Date?
    /// When a round last ended `synced` or `partial`.
    public var lastSuccessAt: Date?
    /// The server this database belongs to, normalised; set by the first round (sync-engine §1.9).
    public var serverRoot: String?
    /// The account this database belongs to: the first `user_id` in server data.
    public var accountUserId: String?
    /// Event types whose property definitions the last bootstrap could not fetch (S84). Later rounds fetch them
    /// again after their pull, so a fault during one bootstrap does not hide a type's definitions for good.
    public var unfetchedDefinitionTypes: Set<String>
    /// When the geofences were last read whole (refresh or bootstrap), for `geofenceRefreshInterval` (S78).
    public var geofencesRefreshedAt: Date?
    /// The `Trendy-Features` of the server's last answer (sync-engine R0); empty before the first answer and against
    /// the original backend.
    public var serverFeatures: ServerFeatures
    /// The id of the server's history whose acknowledgments this device holds (R15); nil before the first answer
    /// that named one. Moves to a new history only once what the device holds was given back to it.
    public var serverHistoryId: String?
    /// Ids whose unsent create a local delete cancelled (sync-engine §1.7), until a completed pull or bootstrap: a
    /// copy of this database put back from before the create was sent still counts it unsent, so the server may hold
    /// it; server data of one is answered with a delete instead of being written.
    public var cancelledCreateIds: Set<String>
    /// Where the pull began whose check at the feed's head (R15 *Acknowledgments*) no pull has made yet: set by a
    /// pull's first page that is not its last, cleared by the page that reaches the head and by a bootstrap. A pull
    /// cut off after pages that went past a version's time leaves it, so the next pull checks from there.
    public var headCheckStart: FeedPosition?

    /// A state; the defaults are a database that never synced.
    public init(
        cursor: Int64 = 0,
        cursorCreatedAt: Date? = nil,
        bootstrapRequested: Bool = false,
        pendingDeleteIds: Set<String> = [],
        breakerConsecutive429: Int = 0,
        breakerBackoffUntil: Date? = nil,
        breakerMultiplier: Double = 1.0,
        breakerRetryAfterHint: Double? = nil,
        quietUntil: Date? = nil,
        lastSuccessAt: Date? = nil,
        serverRoot: String? = nil,
        accountUserId: String? = nil,
        unfetchedDefinitionTypes: Set<String> = [],
        geofencesRefreshedAt: Date? = nil,
        serverFeatures: ServerFeatures = ServerFeatures(),
        serverHistoryId: String? = nil,
        cancelledCreateIds: Set<String> = [],
        headCheckStart: FeedPosition? = nil
    ) {
        self.cursor = cursor
        self.cursorCreatedAt = cursorCreatedAt
        self.bootstrapRequested = bootstrapRequested
        self.pendingDeleteIds = pendingDeleteIds
        self.breakerConsecutive429 = breakerConsecutive429
        self.breakerBackoffUntil = breakerBackoffUntil
        self.breakerMultiplier = breakerMultiplier
        self.breakerRetryAfterHint = breakerRetryAfterHint
        self.quietUntil = quietUntil
        self.lastSuccessAt = lastSuccessAt
        self.serverRoot = serverRoot
        self.accountUserId = accountUserId
        self.unfetchedDefinitionTypes = unfetchedDefinitionTypes
        self.geofencesRefreshedAt = geofencesRefreshedAt
        self.serverFeatures = serverFeatures
        self.serverHistoryId = serverHistoryId
        self.cancelledCreateIds = cancelledCreateIds
        self.headCheckStart = headCheckStart
    }
}

extension EngineState {
    /// `cursor` with its time: what a pull or a stream starts from. Setting it sets both.
    public var position: FeedPosition {
        get { FeedPosition(cursor: cursor, createdAt: cursorCreatedAt) }
        set {
            cursor = newValue.cursor
            cursorCreatedAt = newValue.createdAt
        }
    }
}
