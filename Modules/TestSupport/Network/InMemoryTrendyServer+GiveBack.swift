import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    /// `POST /api/v1/sync/give-back` (api-v1 §15.1), as trendy-server answers it: an item is taken only when newer,
    /// by `acknowledged_at`, than what the model holds; parents first; each item alone.
    public func giveBack(user: String, _ items: [GiveBackItem]) throws(NetworkError) -> GiveBackResponse {
        guard items.count <= 500 else { throw Problems.validation("items: at most 500 a request") }
        for (index, item) in items.enumerated() where !item.deleted && item.data?["id"]?.stringValue != item.id {
            throw Problems.validation("items[\(index)].data must be the entity, with its id")
        }
        let ordered = items.sorted { $0.applicationRank < $1.applicationRank }
        var results: [GiveBackResult] = []
        for item in ordered {
            do throws(NetworkError) {
                let outcome = try giveBackOne(user: user, item)
                results.append(GiveBackResult(entityType: item.entityType, id: item.id.lowercased(), outcome: outcome))
            } catch {
                results.append(
                    GiveBackResult(
                        entityType: item.entityType, id: item.id.lowercased(), outcome: .refused,
                        detail: error.httpFailure?.message ?? "\(error)", existingId: error.httpFailure?.existingId))
            }
        }
        return GiveBackResponse(results: results)
    }

    private func giveBackOne(user: String, _ item: GiveBackItem) throws(NetworkError) -> GiveBackOutcome {
        let id = item.id.lowercased()
        let acknowledged = item.acknowledgedAt.millisecondsSince1970
        let key = TombstoneKey(user: user, type: item.entityType, id: id)
        let (owner, held, deletedAt, began) = state.withLock { state in
            let stored = Self.stored(state, item.entityType, id)
            // When the held row's incarnation began: the earlier of its `created_at` and its latest create entry's
            // time, as trendy-server reads it.
            let began = min(
                stored?.createdAt?.millisecondsSince1970 ?? .max, Self.lastCreated(id, user: user, state) ?? .max)
            return (stored?.userId, stored?.updatedAt?.millisecondsSince1970, state.tombstones[key], began)
        }
        if let owner, owner != user { throw Problems.conflict("id: the id is taken", existingId: nil) }
        if item.deleted {
            if held != nil {
                // api-v1 §15.1: a delete ends the incarnation it finds and wins over the edits of it since, as
                // without a restore; only an incarnation created after it keeps the row.
                if !GiveBackItem.deleteEnds(incarnationBegan: began, deletedAt: acknowledged) { return .kept }
                switch item.entityType {
                case .eventType: try deleteEventType(user: user, id: id)
                case .event: try deleteEvent(user: user, id: id)
                case .geofence: try deleteGeofence(user: user, id: id)
                case .propertyDefinition: try deletePropertyDefinition(user: user, id: id)
                }
            }
            state.withLock { state in
                if (state.tombstones[key] ?? Int64.min) < acknowledged { state.tombstones[key] = acknowledged }
            }
            return held != nil || deletedAt == nil ? .applied : .kept
        }
        let itemBegan = GiveBackItem.incarnationBegan(
            createdAt: item.data?["created_at"]?.stringValue.flatMap(RFC3339.milliseconds(from:)),
            acknowledgedAt: acknowledged)
        if held == nil, let deletedAt, GiveBackItem.deleteEnds(incarnationBegan: itemBegan, deletedAt: deletedAt) {
            return .deleted
        }
        var data = item.data ?? .null
        var stamp = item.acknowledgedAt
        if let held {
            // Newer as a whole, yet maybe not field by field (api-v1 §15.1): the fields the item changes and changed
            // last before its time are taken, the others keep the model's values; the row keeps its later time. Older
            // as a whole: every field, but one a device's queued edit wrote since, and the device's own queued edits.
            let merged = state.withLock { Self.newerFields(of: item, user: user, held: held, $0) }
            if held >= acknowledged {
                guard let merged, merged.taken else { return .kept }
                (data, stamp) = (merged.object, Date(millisecondsSince1970: held))
            } else if let merged {
                data = merged.object
            }
        }
        // A create writes the device's queued edits too: those members count from now (api-v1 §15.1).
        let pending = held == nil ? Set(item.pending) : []
        let operation: MutationOperation = held == nil ? .create : .update
        return try state.withLock { (state: inout State) throws(NetworkError) -> GiveBackOutcome in
            switch item.entityType {
            case .eventType:
                var type: APIEventType = try Self.decode(data, user: user)
                (type.userId, type.updatedAt) = (user, stamp)
                try checkUnique(type, in: Self.eventTypeObjects, state)
                state.eventTypes[id] = type
                log(&state, user: user, .eventType, operation, id: id, data: type)
            case .propertyDefinition:
                var definition: APIPropertyDefinition = try Self.decode(data, user: user)
                (definition.userId, definition.updatedAt) = (user, stamp)
                guard state.eventTypes[definition.eventTypeId.lowercased()]?.userId == user else {
                    throw Problems.notFound("event type")
                }
                try checkUnique(definition, in: Self.definitionObjects, state)
                state.definitions[id] = definition
                log(&state, user: user, .propertyDefinition, operation, id: id, data: definition)
            case .geofence:
                var fence: APIGeofence = try Self.decode(data, user: user)
                (fence.userId, fence.updatedAt) = (user, stamp)
                for reference in [fence.fields.eventTypeEntryId, fence.fields.eventTypeExitId].compactMap({ $0 })
                where state.eventTypes[reference.lowercased()]?.userId != user {
                    throw Problems.validation("a geofence's event type must be one of the user's")
                }
                try checkUnique(fence, in: Self.geofenceObjects, state)
                state.geofences[id] = fence
                log(&state, user: user, .geofence, operation, id: id, data: fence)
            case .event:
                var event: APIEvent = try Self.decode(data, user: user)
                (event.userId, event.updatedAt, event.eventType) = (user, stamp, nil)
                guard state.eventTypes[event.eventTypeId.lowercased()]?.userId == user else {
                    throw Problems.validation("event_type_id: no such event type")
                }
                state.events[id] = event
                log(&state, user: user, .event, operation, id: id, data: event)
            }
            state.givenBackChanges[state.nextChangeId - 1] = acknowledged  // the entry just logged
            if !pending.isEmpty { state.givenBackPending[state.nextChangeId - 1] = pending }
            return .applied
        }
    }

    /// The item's object as `GiveBackFieldMerge` takes it over the model's row, or nil when nothing is left to take.
    /// The change entries count at their snapshot's `updated_at`, a give-back's at the time it gave back.
    /// When the id's latest create was made: a given-back one at the time it was given back with, any other at its
    /// entry's time; nil when the log has none.
    private static func lastCreated(_ id: String, user: String, _ state: State) -> Int64? {
        guard
            let entry = state.changes.last(where: {
                $0.userId == user && $0.entityId == id && $0.knownOperation == .create
            })
        else { return nil }
        return state.givenBackChanges[entry.id] ?? entry.createdAt?.millisecondsSince1970
    }

    private static func newerFields(
        of item: GiveBackItem, user: String, held: Int64, _ state: State
    ) -> (object: JSONValue, taken: Bool)? {
        let id = item.id.lowercased()
        let current: JSONValue? =
            switch item.entityType {
            case .eventType: state.eventTypes[id].flatMap(Self.object)
            case .event: state.events[id].flatMap(Self.object)
            case .geofence: state.geofences[id].flatMap(Self.object)
            case .propertyDefinition: state.definitions[id].flatMap(Self.object)
            }
        guard let stored = current?.objectValue, var members = item.data?.objectValue else { return nil }
        for key in stored.keys where members[key] == nil { members[key] = key == "properties" ? .object([:]) : .null }
        members = GiveBackFieldMerge.keepingPending(item.pending, in: members, held: stored)
        var merge = GiveBackFieldMerge()
        for entry in state.changes where entry.userId == user && entry.entityId == id {
            let snapshot = entry.data?.objectValue
            let written = entry.createdAt?.millisecondsSince1970 ?? 0
            if let givenBack = state.givenBackChanges[entry.id] {
                merge.add(
                    snapshot, at: givenBack, pending: state.givenBackPending[entry.id] ?? [], writtenAt: written)
            } else {
                merge.add(
                    snapshot, at: snapshot?["updated_at"]?.stringValue.flatMap(RFC3339.milliseconds(from:)) ?? written)
            }
        }
        let acknowledged = item.acknowledgedAt.millisecondsSince1970
        if held >= acknowledged {
            guard let merged = merge.merge(members, over: stored, acknowledged: acknowledged, rowTime: held) else {
                return (.object(members), false)
            }
            return (.object(merged), true)
        }
        let kept = merge.keepingNewer(members, over: stored, acknowledged: acknowledged, rowTime: held)
        return (.object(kept.members), kept.taken)
    }

    private static func object(_ entity: some Encodable) -> JSONValue? {
        (try? JSONCoding.encode(entity)).flatMap { try? JSONText.parse(Array($0)) }
    }

    private static func stored(
        _ state: State, _ type: MutationEntityType, _ id: String
    ) -> (userId: String, createdAt: Date?, updatedAt: Date?)? {
        switch type {
        case .eventType: state.eventTypes[id].map { ($0.userId, $0.createdAt, $0.updatedAt) }
        case .event: state.events[id].map { ($0.userId, $0.createdAt, $0.updatedAt) }
        case .geofence: state.geofences[id].map { ($0.userId, $0.createdAt, $0.updatedAt) }
        case .propertyDefinition: state.definitions[id].map { ($0.userId, $0.createdAt, $0.updatedAt) }
        }
    }

    /// The REST object as the real server reads it; what does not decode is the 400 it answers.
    private static func decode<Entity: Decodable>(_ data: JSONValue, user: String) throws(NetworkError) -> Entity {
        var members = data.objectValue ?? [:]
        if members["user_id"] == nil { members["user_id"] = .string(user) }
        do {
            return try JSONCoding.decode(Entity.self, from: Data(JSONText.string(.object(members)).utf8))
        } catch {
            throw Problems.validation("data: \(error)")
        }
    }
}
