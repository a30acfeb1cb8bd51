import Foundation
import Models
import Protocols

/// How the in-memory server keeps one kind of field object: where its objects are, what they are called, and the
/// field no two of one scope may share (as the real server's `FieldObjectTable`).
struct InMemoryObjects<Object: ServerObject>: Sendable {
    let objects: any WritableKeyPath<InMemoryTrendyServer.State, [String: Object]> & Sendable
    let type: MutationEntityType
    let noun: String
    let unique: @Sendable (Object) -> String
    let scope: @Sendable (Object) -> String
    /// "name: an event type named Tea already exists"
    let taken: @Sendable (String) -> String
}

extension InMemoryTrendyServer {
    /// Stores `candidate`: an identical create of the caller's (every field a create carries) answers the stored
    /// object, another object with its id or its unique field is a 409.
    func create<Object>(
        _ candidate: Object, in kind: InMemoryObjects<Object>, _ state: inout State
    ) throws(NetworkError) -> Object {
        if let stored = state[keyPath: kind.objects][candidate.id] {
            guard stored.userId == candidate.userId else { throw Problems.idTaken }
            var comparable = stored
            (comparable.createdAt, comparable.updatedAt, comparable.fields) = (nil, nil, stored.fields.forCreate)
            var incoming = candidate
            incoming.fields = candidate.fields.forCreate
            if comparable == incoming { return stored }
            throw Problems.conflict("id: another \(kind.noun) has this id", existingId: candidate.id)
        }
        try checkUnique(candidate, in: kind, state)
        var created = candidate
        (created.createdAt, created.updatedAt) = (now, now)
        state[keyPath: kind.objects][created.id] = created
        log(&state, user: created.userId, kind.type, .create, id: created.id, data: created)
        return created
    }

    /// Applies `change` to the caller's object `id` and stores it when it changed anything.
    func update<Object>(
        _ id: String, user: String, in kind: InMemoryObjects<Object>, _ state: inout State,
        change: (inout Object) throws(NetworkError) -> Void
    ) throws(NetworkError) -> Object {
        guard let stored = state[keyPath: kind.objects][id], stored.userId == user else {
            throw missing(state, user: user, kind.type, id: id, noun: kind.noun)
        }
        var updated = stored
        try change(&updated)
        guard updated != stored else { return stored }
        if !kind.unique(updated).isExactly(kind.unique(stored)) { try checkUnique(updated, in: kind, state) }
        updated.updatedAt = now
        state[keyPath: kind.objects][id] = updated
        log(&state, user: user, kind.type, .update, id: id, data: updated)
        return updated
    }

    func checkUnique<Object>(
        _ object: Object, in kind: InMemoryObjects<Object>, _ state: State
    ) throws(NetworkError) {
        let value = kind.unique(object)
        if let holder = state[keyPath: kind.objects].values.first(where: {
            kind.scope($0) == kind.scope(object) && kind.unique($0).isExactly(value) && $0.id != object.id
        }) {
            throw Problems.conflict(kind.taken(value), existingId: holder.id)
        }
    }

    static let eventTypeObjects = InMemoryObjects<APIEventType>(
        objects: \.eventTypes, type: .eventType, noun: "event type", unique: \.name, scope: \.userId,
        taken: { "name: an event type named \($0) already exists" })
    static let geofenceObjects = InMemoryObjects<APIGeofence>(
        objects: \.geofences, type: .geofence, noun: "geofence", unique: \.name, scope: \.userId,
        taken: { "name: a geofence named \($0) already exists" })
    static let definitionObjects = InMemoryObjects<APIPropertyDefinition>(
        objects: \.definitions, type: .propertyDefinition, noun: "property definition", unique: \.key,
        scope: \.eventTypeId, taken: { "key: this event type already has a property \($0)" })
}
