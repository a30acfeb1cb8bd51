import Foundation

/// The version of an entity the server last acknowledged to this device (sync-engine R15): when the server wrote it
/// (its `updated_at`; for a delete, the time of the delete), and whether it was a delete. What a device gives back
/// to a server that went back to a backup, and how that server orders the versions several devices give back.
public struct AcknowledgedVersion: Sendable, Hashable {
    /// The entity's kind.
    public var entityType: MutationEntityType
    /// The entity's id, lowercased.
    public var id: String
    /// When the server acknowledged the version, by its clock.
    public var acknowledgedAt: Date
    /// True when the version is a delete.
    public var deleted: Bool
    /// When the version's incarnation was created, as the server said (its `created_at`); nil for a delete or when
    /// the server did not say. Devices keep no creation time of events in their rows: an event's give-back takes it
    /// from here, so that the server tells an edit of an event a delete ended from a re-creation (api-v1 §15.1).
    public var createdAt: Date?

    /// The version of `id` the server acknowledged at `acknowledgedAt`.
    public init(
        entityType: MutationEntityType, id: String, acknowledgedAt: Date, deleted: Bool, createdAt: Date? = nil
    ) {
        self.entityType = entityType
        self.id = id
        self.acknowledgedAt = acknowledgedAt
        self.deleted = deleted
        self.createdAt = createdAt
    }
}
