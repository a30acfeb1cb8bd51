import Models
import Sync

/// An entity whose `status` trendyctl shows.
protocol StatusShowing: Identifiable where ID == String {
    var syncStatus: SyncStatus { get set }
}

extension Event: StatusShowing {}
extension EventType: StatusShowing {}
extension Geofence: StatusShowing {}
extension PropertyDefinition: StatusShowing {}

extension EventStore {
    /// The entities as trendyctl shows them (trendyctl §1.3): the status from the queue — `pending` while a change
    /// waits to be pushed, `failed` while a dead letter holds one — else the stored `sync_status`. Stored, an edit of
    /// a synced entity stays `synced` (sync-engine §1.3), which would tell the user the server has it.
    func shown<Entity: StatusShowing>(_ entities: [Entity]) throws -> [Entity] {
        guard !entities.isEmpty else { return entities }
        // A page is looked up id by id; a long listing reads the queue once.
        let queued = try entities.count <= 500 ? queuedStatuses(of: Set(entities.map(\.id))) : queuedStatuses()
        return entities.map { entity in
            var shown = entity
            if let status = queued[entity.id] { shown.syncStatus = status }
            return shown
        }
    }

    /// One entity as trendyctl shows it.
    func shown<Entity: StatusShowing>(_ entity: Entity) throws -> Entity {
        try shown([entity])[0]
    }
}
