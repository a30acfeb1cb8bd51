/// One of the four entities as a device's database holds it: what the store's generic operations read and write
/// (sync-engine §2.4). `Event`, `EventType`, `Geofence` and `PropertyDefinition` are these, and only they: a store
/// refuses any other conformer with `DataStoreError.invalidData`.
public protocol LocalEntity: OutboxEntity, Sendable, Hashable, Identifiable where ID == String {
    /// The entity's id, a lowercased UUID.
    var id: String { get set }
    /// The row's stored sync status (sync-engine §1.2).
    var syncStatus: SyncStatus { get set }
}

extension Event: LocalEntity {}
extension EventType: LocalEntity {}
extension Geofence: LocalEntity {}
extension PropertyDefinition: LocalEntity {}
