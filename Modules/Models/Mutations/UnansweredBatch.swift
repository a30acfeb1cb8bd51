import Foundation

/// An event-create batch that was sent and not answered yet, kept so that it is re-sent exactly as it went: same
/// members, same bodies, same key (api-v1 §7, sync-engine §4.7 step 2).
///
/// Without it, a member deleted or rewritten on the device between the send and the re-send would change the batch
/// and so its key, and the server would run the re-send as new creates — bringing back an event another device
/// deleted meanwhile. Kept from the claim that sends it (in the same unit of work as `first_sent_at`) until its
/// answer's outcomes are recorded.
public struct UnansweredBatch: Sendable, Hashable {
    /// One create of the batch.
    public struct Member: Sendable, Hashable, Codable {
        /// The outbox row it was sent for.
        public var mutationId: String
        /// The revision that was sent: an outcome is recorded only against it.
        public var revision: Int
        /// The event it creates.
        public var entityId: String
        /// The create body that was sent.
        public var payload: Data

        /// A member as it was sent.
        public init(mutationId: String, revision: Int, entityId: String, payload: Data) {
            self.mutationId = mutationId
            self.revision = revision
            self.entityId = entityId
            self.payload = payload
        }

        enum CodingKeys: String, CodingKey {
            case mutationId = "mutation_id"
            case revision
            case entityId = "entity_id"
            case payload
        }
    }

    /// The batch's `Idempotency-Key`.
    public var key: String
    /// In request order.
    public var members: [Member]
    /// When it was first sent.
    public var sentAt: Date

    /// A batch as its claim sends it.
    public init(key: String, members: [Member], sentAt: Date) {
        self.key = key
        self.members = members
        self.sentAt = sentAt
    }
}
