import Foundation

/// One local create, update or delete the server has not acknowledged yet: a row of the durable outbox
/// (sync-engine §1.5).
public struct PendingMutation: Sendable, Hashable, Identifiable {
    /// Insertion order, the tie-breaker of the queue order `(created_at, seq)`. 0 before insertion.
    public var seq: Int64
    public var id: String
    public var entityType: MutationEntityType
    public var operation: MutationOperation
    public var entityId: String
    /// The exact JSON request body to send (§1.6); nil for deletes.
    public var payload: Data?
    /// The `Idempotency-Key`. Reused on every re-send; replaced when the body changes or a dead letter is retried.
    public var clientRequestId: String
    public var state: MutationState
    /// Counted failures (§6.2).
    public var attempts: Int
    public var lastError: String?
    public var lastAttemptAt: Date?
    /// Set and committed before the first request carrying the mutation leaves. Nil means "unsent".
    public var firstSentAt: Date?
    /// Incremented whenever coalescing or a retry changes payload, key or state; outcomes are recorded only
    /// against the revision that was sent.
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date

    /// The `last_error` of a create whose parent was removed (sync-engine R8); a retry rebuilds its payload.
    public static let parentDeletedError = "parent deleted"

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
        updatedAt: Date
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

    public var isLive: Bool { state == .pending }
    public var isDeadLetter: Bool { state == .failed }
    public var isSent: Bool { firstSentAt != nil }
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
