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

    /// The version of `id` the server acknowledged at `acknowledgedAt`.
    public init(entityType: MutationEntityType, id: String, acknowledgedAt: Date, deleted: Bool) {
        self.entityType = entityType
        self.id = id
        self.acknowledgedAt = acknowledgedAt
        self.deleted = deleted
    }
}
