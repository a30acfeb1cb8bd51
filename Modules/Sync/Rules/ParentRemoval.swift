import Foundation
import Models
import Protocols

/// What the outbox does when a parent row goes away locally (sync-engine R7, R8), in the unit of work that removes
/// it: by the user, by an applied delete entry, by a read-back's 404, by discarding its create, or by a bootstrap.
enum ParentRemoval {
    /// The `last_error` of a create whose parent was removed (R8); `retryDeadLetters` rebuilds such a create.
    static let parentDeleted = PendingMutation.parentDeletedError

    /// R7, before an event type is removed: every event whose queued update (live or dead) sets `event_type_id` to
    /// the type gets a queued delete instead of the update (and of a sent create beside it). The server still holds
    /// it under its old type (or the create's), out of reach of the type's cascade, so without the delete it would
    /// outlive the type on the server alone. Returns the ids.
    @discardableResult
    static func deleteEventsMoved(into typeId: String, _ store: any DataStoreProtocol, at now: Date) throws -> [String]
    {
        let type = typeId.lowercased()
        let queue = try store.fetchPendingMutations().filter { $0.entityType == .event }
        let deleted = Set(queue.filter { $0.operation == .delete }.map(\.entityId))
        let moved = queue.filter { mutation in
            mutation.operation == .update && !deleted.contains(mutation.entityId)
                && MutationPayload.id(in: mutation.payload, key: "event_type_id") == type
        }.map(\.entityId)
        for id in moved {
            _ = try store.enqueueMutation(entityType: .event, operation: .delete, entityId: id, payload: nil, at: now)
        }
        return moved
    }

    /// R8, once a parent row is gone: a queued create or update that names it in a clearable reference
    /// (`geofence_id`, `event_type_entry_id`, `event_type_exit_id`) no longer does (a create leaves the key out, an
    /// update sends `null`); a queued create of a child that needs it (`event_type_id`) becomes a dead letter now,
    /// `"parent deleted"`, its row kept until it gets another parent and is retried, or is discarded. A rewritten
    /// payload gets a new key and `revision + 1`, sent or not.
    static func parentRemoved(
        _ type: MutationEntityType, id parentId: String, _ store: any DataStoreProtocol, at now: Date
    ) throws {
        guard type == .eventType || type == .geofence else { return }
        let parent = parentId.lowercased()
        for mutation in try store.fetchPendingMutations() where mutation.operation != .delete {
            guard let payload = mutation.payload else { continue }
            let references = clearableReferences(of: mutation.entityType, to: type)
            let named = references.filter { MutationPayload.id(in: payload, key: $0) == parent }
            if !named.isEmpty {
                guard
                    let cleared = try? MutationPayload.clearing(
                        named, in: payload, of: mutation.entityType, operation: mutation.operation)
                else { continue }
                var row = mutation
                row.payload = cleared
                row.clientRequestId = UUIDv7.generate(at: now)
                row.revision += 1
                row.updatedAt = now.roundedToMilliseconds
                try store.rewriteMutation(row)
            } else if type == .eventType, mutation.operation == .create,
                mutation.entityType == .event || mutation.entityType == .propertyDefinition,
                MutationPayload.id(in: payload, key: "event_type_id") == parent
            {
                var row = mutation
                if row.state == .pending { row.attempts += 1 }
                row.state = .failed
                row.lastError = parentDeleted
                row.lastAttemptAt = now.roundedToMilliseconds
                row.revision += 1
                row.updatedAt = now.roundedToMilliseconds
                try store.rewriteMutation(row)
                try store.setSyncStatus(.failed, entityType: row.entityType, id: row.entityId)
            }
        }
    }

    /// The references of `child` to a parent of type `parent` that `null` clears (api-v1 §3.5).
    static func clearableReferences(of child: MutationEntityType, to parent: MutationEntityType) -> [String] {
        switch (child, parent) {
        case (.event, .geofence): ["geofence_id"]
        case (.geofence, .eventType): ["event_type_entry_id", "event_type_exit_id"]
        default: []
        }
    }
}
