import Foundation

/// The version of an entity the server last acknowledged to this device (sync-engine R15): when the server wrote it
/// (its `updated_at`; for a delete, the time of the delete), and whether it was a delete. What a device gives back
/// to a server that went back to a backup, and how that server orders the versions several devices give back.
public struct AcknowledgedVersion: Sendable, Hashable {
    public var entityType: MutationEntityType
    public var id: String
    public var acknowledgedAt: Date
    public var deleted: Bool

    public init(entityType: MutationEntityType, id: String, acknowledgedAt: Date, deleted: Bool) {
        self.entityType = entityType
        self.id = id
        self.acknowledgedAt = acknowledgedAt
        self.deleted = deleted
    }
}
