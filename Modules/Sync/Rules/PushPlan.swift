import Foundation
import Models
import Protocols

/// How a push set is ordered and cut into units (sync-engine §4.4, §4.7).
enum PushPlan {
    enum Phase: Int, CaseIterable {
        case eventTypeCreates = 1
        case geofenceCreates
        case propertyDefinitionCreates
        case eventCreates
        case updates
        case deletes
    }

    /// The push set by phase, each phase in queue order; deletes of events, then property definitions,
    /// geofences and event types.
    static func phases(of pushSet: [PendingMutation]) -> [(Phase, [PendingMutation])] {
        func creates(_ type: MutationEntityType) -> [PendingMutation] {
            pushSet.filter { $0.operation == .create && $0.entityType == type }
        }
        let deletes = [MutationEntityType.event, .propertyDefinition, .geofence, .eventType].flatMap { type in
            pushSet.filter { $0.operation == .delete && $0.entityType == type }
        }
        return [
            (.eventTypeCreates, creates(.eventType)),
            (.geofenceCreates, creates(.geofence)),
            (.propertyDefinitionCreates, creates(.propertyDefinition)),
            (.eventCreates, creates(.event)),
            (.updates, pushSet.filter { $0.operation == .update }),
            (.deletes, deletes),
        ]
    }

    /// The parents a create or update payload names (sync-engine §0): lowercase ids.
    static func parentIds(of mutation: PendingMutation) -> [String] {
        guard mutation.operation != .delete, let payload = mutation.payload,
            let body = try? JSONText.parse(Array(payload))
        else { return [] }
        let keys: [String] =
            switch mutation.entityType {
            case .event: ["event_type_id", "geofence_id"]
            case .propertyDefinition: ["event_type_id"]
            case .geofence: ["event_type_entry_id", "event_type_exit_id"]
            case .eventType: []
            }
        return keys.compactMap { body[$0]?.stringValue?.lowercased() }
    }

    /// Ready event creates cut into batches of at most `size`, in queue order. Items claimed together stay together:
    /// a new batch starts where `first_sent_at` changes, so a batch that went unanswered is re-sent with exactly
    /// its members and therefore under its old key (sync-engine §4.7 step 2). Mixing in items sent later or never would
    /// change the key, and the server would take an item that another device deleted meanwhile as a new create.
    static func batches(_ ready: [PendingMutation], size: Int) -> [[PendingMutation]] {
        var batches: [[PendingMutation]] = []
        var current: [PendingMutation] = []
        for mutation in ready {
            if let first = current.first, current.count == size || first.firstSentAt != mutation.firstSentAt {
                batches.append(current)
                current = []
            }
            current.append(mutation)
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    /// The key of an event-create batch: lowercase hex SHA-256 of `client_request_id:attempts` lines in request
    /// order, so an unanswered batch re-sent with the same members reuses it and any recorded outcome changes it.
    static func batchKey(_ members: [PendingMutation], hashing: any SHA256Hashing) -> String {
        hashing.hexDigest(of: members.map { "\($0.clientRequestId):\($0.attempts)" }.joined(separator: "\n"))
    }
}
