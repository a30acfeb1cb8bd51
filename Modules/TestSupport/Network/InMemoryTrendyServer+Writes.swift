import Foundation
import Models
import Protocols
import Synchronization

/// The model's writes by kind, as a client's generic calls send them (sync-engine §2.1): one dispatch to the routes
/// each kind has, so that `MockNetworkClient` forwards every create, update and delete the same way.
extension InMemoryTrendyServer {
    /// The create route of the request's kind. `queuedAt`: when a re-send's creates were queued (`Trendy-Queued-For`,
    /// api-v1 §7).
    public func create<Request: EntityCreateRequest>(
        user: String, _ request: Request, key: String?, queuedAt: Date? = nil
    ) throws(NetworkError) -> Request.Answer {
        let first = state.withLock { $0.nextChangeId }
        let answer: any Sendable =
            switch request {
            case let request as CreateEventTypeRequest: try createEventType(user: user, request, key: key)
            case let request as CreateEventRequest: try createEvent(user: user, request, key: key)
            case let request as CreateGeofenceRequest: try createGeofence(user: user, request, key: key)
            case let request as CreatePropertyDefinitionRequest:
                try createPropertyDefinition(user: user, eventTypeId: request.eventTypeId, request, key: key)
            default: Self.unknownKind(Request.self)
            }
        let typed = Self.typed(answer, as: Request.Answer.self)
        guard let queuedAt, let id = (typed as? any Identifiable<String>)?.id,
            let dated = dateResentCreates(user: user, ids: [id], from: first, queuedAt: queuedAt)
        else { return typed }
        // The answer as stored now, with its dated `created_at`, before a remembered delete ends it.
        let stored: (any Sendable)? = state.withLock { state in
            switch Request.entityType {
            case .eventType: state.eventTypes[id]
            case .event: state.events[id]
            case .geofence: state.geofences[id]
            case .propertyDefinition: state.definitions[id]
            }
        }
        endRemembered(dated, user: user)
        guard let redated = stored as? Request.Answer else { return typed }
        rememberRedated(redated, user: user, path: "/api/v1/" + request.createPath(segment: { $0 }), key: key)
        return redated
    }

    /// What `dateResentCreates` dated: the time, the ids it created, and those a delete the model remembers from
    /// that time or later ended (`endRemembered` deletes them).
    struct DatedCreates {
        let time: Date
        let ids: Set<String>
        let ended: [(type: MutationEntityType, id: String)]
    }

    /// api-v1 §7, "Re-sends of creates", as trendy-server applies it: the entities whose create entries a re-send
    /// appended since `first` for `ids` are recorded as created when queued, by the model's clock — the
    /// objects' and the snapshots' `created_at` — so that their incarnation begins when the first send's did
    /// (api-v1 §15.1). Nil when the request created nothing (a replay, an identical create).
    func dateResentCreates(user: String, ids: [String], from first: Int64, queuedAt: Date) -> DatedCreates? {
        // The device's clock is the model's: how long the creates were queued is measured against it.
        let now = nowMilliseconds
        let dated = Date(
            millisecondsSince1970: ResentCreate.dated(queuedFor: now - queuedAt.millisecondsSince1970, now: now))
        let wanted = Set(ids.map { $0.lowercased() })
        return state.withLock { state -> DatedCreates? in
            var created: Set<String> = []
            var ended: [(type: MutationEntityType, id: String)] = []
            for index in state.changes.indices.reversed() {
                let entry = state.changes[index]
                guard entry.id >= first else { break }
                guard entry.userId == user, entry.knownOperation == .create, let type = entry.knownEntityType,
                    wanted.contains(entry.entityId)
                else { continue }
                let id = entry.entityId
                created.insert(id)
                if case .object(var snapshot)? = entry.data {
                    snapshot["created_at"] = .string(RFC3339.string(from: dated))
                    state.changes[index].data = .object(snapshot)
                }
                switch type {
                case .eventType: state.eventTypes[id]?.createdAt = dated
                case .event: state.events[id]?.createdAt = dated
                case .geofence: state.geofences[id]?.createdAt = dated
                case .propertyDefinition: state.definitions[id]?.createdAt = dated
                }
                if let deletedAt = state.tombstones[TombstoneKey(user: user, type: type, id: id)],
                    GiveBackItem.deleteEnds(incarnationBegan: dated.millisecondsSince1970, deletedAt: deletedAt)
                {
                    ended.append((type, id))
                }
            }
            return created.isEmpty ? nil : DatedCreates(time: dated, ids: created, ended: ended)
        }
    }

    /// Deletes again what a remembered delete ended (api-v1 §7), through the kind's own delete (its cascade, its
    /// change entry), as the device's DELETE would run.
    func endRemembered(_ dated: DatedCreates, user: String) {
        for (type, id) in dated.ended { try? delete(user: user, type, id: id) }
    }

    /// The idempotency record of a re-send dated since it was stored holds the dated answer, as trendy-server's does.
    func rememberRedated(_ answer: some Sendable, user: String, path: String, key: String?) {
        guard let key, !key.isEmpty else { return }
        let scope = IdempotencyRecord<any Sendable>.Scope(user: user, method: "POST", path: path, key: key)
        state.withLock { state in
            guard let record = state.replays[scope] else { return }
            state.replays[scope] = IdempotencyRecord(fingerprint: record.fingerprint, answer: answer)
        }
    }

    /// The update route of the request's kind.
    public func update<Request: EntityUpdateRequest>(
        user: String, id: String, _ request: Request, key: String?
    ) throws(NetworkError) -> Request.Answer {
        let answer: any Sendable =
            switch request {
            case let request as UpdateEventTypeRequest: try updateEventType(user: user, id: id, request, key: key)
            case let request as UpdateEventRequest: try updateEvent(user: user, id: id, request, key: key)
            case let request as UpdateGeofenceRequest: try updateGeofence(user: user, id: id, request, key: key)
            case let request as UpdatePropertyDefinitionRequest:
                try updatePropertyDefinition(user: user, id: id, request, key: key)
            default: Self.unknownKind(Request.self)
            }
        return Self.typed(answer, as: Request.Answer.self)
    }

    /// The delete route of `type`, with its cascade.
    public func delete(user: String, _ type: MutationEntityType, id: String) throws(NetworkError) {
        switch type {
        case .eventType: try deleteEventType(user: user, id: id)
        case .event: try deleteEvent(user: user, id: id)
        case .geofence: try deleteGeofence(user: user, id: id)
        case .propertyDefinition: try deletePropertyDefinition(user: user, id: id)
        }
    }

    /// A request type of the protocol that is not one of the four kinds: a test's mistake, not a server's answer.
    private static func unknownKind(_ request: Any.Type) -> Never {
        preconditionFailure("the in-memory server has no route for \(request)")
    }

    private static func typed<Answer>(_ answer: any Sendable, as type: Answer.Type) -> Answer {
        guard let typed = answer as? Answer else {
            preconditionFailure("the in-memory server answered \(Swift.type(of: answer)), not \(Answer.self)")
        }
        return typed
    }
}
