import Foundation

/// One local create, update or delete the server has not acknowledged yet: a row of the durable outbox
/// (sync-engine §1.5).
public struct PendingMutation: Sendable, Hashable, Identifiable {
    /// Insertion order, the tie-breaker of the queue order `(created_at, seq)`. 0 before insertion.
    public var seq: Int64
    public var id: String
    /// The kind of the entity it changes.
    public var entityType: MutationEntityType
    /// What it does.
    public var operation: MutationOperation
    /// The id of the entity it changes.
    public var entityId: String
    /// The exact JSON request body to send (sync-engine §1.6); nil for deletes.
    public var payload: Data?
    /// The `Idempotency-Key`. Reused on every re-send; replaced when the body changes or a dead letter is retried.
    public var clientRequestId: String
    /// Live or dead.
    public var state: MutationState
    /// Counted failures (sync-engine §6.2).
    public var attempts: Int
    /// Why the last attempt failed; a dead letter's reason.
    public var lastError: String?
    /// When it was last sent.
    public var lastAttemptAt: Date?
    /// Set and committed before the first request carrying the mutation leaves. Nil means "unsent".
    public var firstSentAt: Date?
    /// Incremented whenever coalescing or a retry changes payload, key or state; outcomes are recorded only
    /// against the revision that was sent.
    public var revision: Int
    /// When it was queued: its place in the queue.
    public var createdAt: Date
    /// When its payload, key or state last changed.
    public var updatedAt: Date
    /// An update's earliest send that no answer has settled: its key and body, set when it is claimed. A send whose
    /// answer was lost may have been committed; when a merge (R2) or a retry has since given the row another key,
    /// the push re-sends this one first, exactly as it went, so that a committed send is replayed and never applied
    /// again over a later write of another device (docs/error-recovery.md, "Lost answers"). Nil otherwise.
    public var sentKey: String?
    /// The body sent with `sentKey`.
    public var sentPayload: Data?
    /// A create's edits folded into it since it was queued (sync-engine §1.7), merged as one update body (R2): what
    /// the user changed beyond the create's first body. A create the server turns out to hold already — a
    /// database put back from a backup taken before its send — completes as that entity, and these go on as an
    /// update, rather than being read back away with the create (R5). Nil for a create never edited, and for
    /// updates and deletes.
    public var foldedEdits: Data?

    /// The `last_error` of a create whose parent was removed (sync-engine R8); a retry rebuilds its payload.
    public static let parentDeletedError = "parent deleted"

    /// Ends the `last_error` of a create refused because another server entity holds its name or timestamp
    /// (sync-engine §4.6), followed by that entity's id, so that a user can merge into it.
    public static let heldOnServerMarker = "; held on the server by "

    /// Begins the `last_error` of a version a restored server refused when the device gave it back (sync-engine
    /// R15), kept as a dead letter of the device's whole row.
    public static let refusedGiveBackPrefix = "the restored server refused it: "

    /// The id of the server entity holding this refused create's name or timestamp, read from `lastError`.
    public var heldOnServerBy: String? {
        guard let lastError, let marker = lastError.range(of: Self.heldOnServerMarker, options: .backwards) else {
            return nil
        }
        let id = lastError[marker.upperBound...]
        return id.isEmpty ? nil : String(id)
    }

    /// A row as a store reads it; what is not given is a fresh, live, unsent mutation.
    public init(
        seq: Int64 = 0,
        id: String,
        entityType: MutationEntityType,
        operation: MutationOperation,
        entityId: String,
        payload: Data?,
        clientRequestId: String,
        state: MutationState = .pending,
        attempts: Int = 0,
        lastError: String? = nil,
        lastAttemptAt: Date? = nil,
        firstSentAt: Date? = nil,
        revision: Int = 1,
        createdAt: Date,
        updatedAt: Date,
        sentKey: String? = nil,
        sentPayload: Data? = nil,
        foldedEdits: Data? = nil
    ) {
        self.seq = seq
        self.id = id
        self.entityType = entityType
        self.operation = operation
        self.entityId = entityId
        self.payload = payload
        self.clientRequestId = clientRequestId
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.lastAttemptAt = lastAttemptAt
        self.firstSentAt = firstSentAt
        self.revision = revision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sentKey = sentKey
        self.sentPayload = sentPayload
        self.foldedEdits = foldedEdits
    }

    /// A new live mutation with fresh UUIDv7 id and key, stamped `now`.
    public static func new(
        entityType: MutationEntityType,
        operation: MutationOperation,
        entityId: String,
        payload: Data?,
        at now: Date
    ) -> PendingMutation {
        let now = now.roundedToMilliseconds
        return PendingMutation(
            id: UUIDv7.generate(at: now), entityType: entityType, operation: operation, entityId: entityId,
            payload: payload, clientRequestId: UUIDv7.generate(at: now), createdAt: now, updatedAt: now)
    }

    /// True while the next round sends it.
    public var isLive: Bool { state == .pending }
    /// True once the server refused it for good.
    public var isDeadLetter: Bool { state == .failed }
    /// True once a request carrying it may have left (sync-engine §1.7's "sent").
    public var isSent: Bool { firstSentAt != nil }

    /// The row as a claim (DS2) leaves it: `first_sent_at` set once, and an update's send remembered unless an
    /// earlier one is still unsettled (`sentKey`).
    public func claimed(at now: Date) -> PendingMutation {
        var row = self
        if row.firstSentAt == nil {
            row.firstSentAt = now.roundedToMilliseconds
            row.updatedAt = now.roundedToMilliseconds
        }
        if row.operation == .update && row.sentKey == nil {
            row.sentKey = row.clientRequestId
            row.sentPayload = row.payload
        }
        return row
    }

    /// The update's earlier send to re-send before this body: set when that send is unsettled and the row has
    /// another key since. Its revision is not the queued one, so its answer is recorded as an older revision's (R2).
    public var earlierSend: PendingMutation? {
        guard operation == .update, let sentKey, sentKey != clientRequestId, let sentPayload else { return nil }
        var earlier = self
        earlier.clientRequestId = sentKey
        earlier.payload = sentPayload
        earlier.revision = revision - 1
        return earlier
    }
}

/// What `enqueueMutation` did with a local change (sync-engine §1.7).
public enum EnqueueResult: String, Sendable, Hashable {
    /// A new row was inserted.
    case inserted
    /// An update was folded into an unsent create.
    case folded
    /// The payload of an existing row was replaced (a second create, or a newer update).
    case replaced
    /// A delete cancelled an unsent create: nothing is queued and nothing will be sent.
    case cancelled
    /// A repeated delete: nothing changed.
    case noOp
}

/// What `recordMutationFailure` did (sync-engine DS4).
public enum FailureResult: Sendable, Hashable {
    /// One more counted failure; the mutation stays live.
    case counted(attempts: Int)
    /// The mutation became a dead letter.
    case deadLettered(attempts: Int)
    /// Nothing was written: the row is gone or its revision changed since it was claimed.
    case skipped
}
