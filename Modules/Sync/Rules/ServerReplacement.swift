import Models
import Protocols

extension DataStoreProtocol {
    /// Writes a complete server object onto the local row `id` (a bootstrap, a read-back; sync-engine §5.2, R4): its
    /// fields replace the row's, then the keys of `update`, the row's queued patch, are put back on top (R3). The
    /// row ends `synced`; the caller keeps a rebased row's status (`Rebase.keepStatus`).
    func replace(id: String, with entity: APIEntity, rebasing update: PendingMutation? = nil) throws {
        switch entity {
        case .eventType(let type):
            try upsertEventType(id: id) { row in
                row.replaceFields(with: type)
                Rebase.apply(update, to: &row)
            }
        case .event(let event):
            try upsertEvent(id: id) { row in
                row.replaceFields(with: event)
                Rebase.apply(update, to: &row)
            }
        case .geofence(let fence):
            try upsertGeofence(id: id) { row in
                row.replaceFields(with: fence)
                Rebase.apply(update, to: &row)
            }
        case .propertyDefinition(let definition):
            try upsertPropertyDefinition(id: id, eventTypeId: definition.eventTypeId.lowercased()) { row in
                row.replaceFields(with: definition)
                Rebase.apply(update, to: &row)
            }
        }
    }
}
