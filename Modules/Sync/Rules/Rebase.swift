import Foundation
import Models
import Protocols

/// R3: server data for an entity whose queue holds an update (and no create) is applied, then the update's patch over
/// it — each key it holds, `null` clearing, coordinates as a pair, `properties_patch` key by key, a whole
/// `properties` as queued — so that neither the server's other fields nor the local edit is lost. The row keeps
/// the status of its update (`pending`, or `failed` while it is dead), and the entity becomes owed: once the update
/// is through, the read-back shows what the server made of both.
enum Rebase {
    /// A payload as change data, or nil when it is not a JSON object.
    static func object(_ payload: Data) -> [String: JSONValue]? {
        guard case .object(let members)? = try? JSONCoding.decode(JSONValue.self, from: payload) else { return nil }
        return members
    }

    static func apply(_ update: PendingMutation?, to event: inout Event) {
        if let patch = update?.payload.flatMap(object) { ChangeApplication.apply(patch, to: &event) }
    }

    static func apply(_ update: PendingMutation?, to eventType: inout EventType) {
        if let patch = update?.payload.flatMap(object) { ChangeApplication.apply(patch, to: &eventType) }
    }

    static func apply(_ update: PendingMutation?, to geofence: inout Geofence) {
        if let patch = update?.payload.flatMap(object) { ChangeApplication.apply(patch, to: &geofence) }
    }

    static func apply(_ update: PendingMutation?, to definition: inout PropertyDefinition) {
        if let patch = update?.payload.flatMap(object) { ChangeApplication.apply(patch, to: &definition) }
    }

    /// After the upsert (which ends `synced`): the row keeps its update's status, and the entity is owed.
    static func keepStatus(of update: PendingMutation, _ store: any DataStoreProtocol) throws {
        try store.setSyncStatus(update.isLive ? .pending : .failed, entityType: update.entityType, id: update.entityId)
        try store.markOwed(update.entityType, id: update.entityId, reason: .fenced)
    }
}
