import Foundation
import Models
import Protocols

/// R1 against a server without `properties_patch` (the original backend): before an update's first send, its
/// `properties_patch` becomes `properties` with the row's whole local map (event properties then merge as one
/// field), and a property definition update carries `display_order` (the original resets it when absent). Done once,
/// under a new key, in the claim's unit of work.
enum PatchForOriginal {
    static func rewrite(_ id: String, entityId: String, _ store: any DataStoreProtocol, at now: Date) throws {
        guard var row = try store.fetchMutations(entityId: entityId).first(where: { $0.id == id }),
            row.operation == .update, row.isLive, !row.isSent, let payload = row.payload,
            case .object(var body) = try? JSONCoding.decode(JSONValue.self, from: payload)
        else { return }
        switch row.entityType {
        case .event:
            guard body[MutationPayload.propertiesPatchKey] != nil, let event = try store.findEvent(id: entityId) else {
                return
            }
            body[MutationPayload.propertiesPatchKey] = nil
            body["properties"] = try JSONValueEncoder.encode(event.properties)
        case .propertyDefinition:
            guard body["display_order"] == nil, let definition = try store.findPropertyDefinition(id: entityId) else {
                return
            }
            body["display_order"] = .number(Double(definition.displayOrder))
        case .eventType, .geofence:
            return
        }
        row.payload = try MutationPayload.canonical(
            JSONCoding.encode(JSONValue.object(body)), .update, of: row.entityType)
        row.clientRequestId = UUIDv7.generate(at: now)
        row.revision += 1
        row.updatedAt = now.roundedToMilliseconds
        try store.rewriteMutation(row)
    }
}
