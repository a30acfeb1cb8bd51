import Foundation

/// An event-create batch that was sent and not answered yet, kept so that it is re-sent exactly as it went: same
/// members, same bodies, same key (api-v1 §7, sync-engine §4.7 step 2).
///
/// Without it, a member deleted or rewritten on the device between the send and the re-send would change the batch
/// and so its key, and the server would run the re-send as new creates — bringing back an event another device
/// deleted meanwhile. Kept from the claim that sends it (in the same unit of work as `first_sent_at`) until its
/// answer's outcomes are recorded.
public struct UnansweredBatch: Sendable, Hashable {
    public struct Member: Sendable, Hashable, Codable {
        public var mutationId: String
        /// The revision that was sent: an outcome is recorded only against it.
        public var revision: Int
        public var entityId: String
        /// The create body that was sent.
        public var payload: Data

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
    public var sentAt: Date

    public init(key: String, members: [Member], sentAt: Date) {
        self.key = key
        self.members = members
        self.sentAt = sentAt
    }
}
