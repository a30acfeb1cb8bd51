import Foundation
import Models
import Protocols
import Synchronization

/// The model's writes by kind, as a client's generic calls send them (sync-engine §2.1): one dispatch to the routes
/// each kind has, so that `MockNetworkClient` forwards every create, update and delete the same way.
extension InMemoryTrendyServer {
    /// The create route of the request's kind. `queuedAt`: a re-send's `Trendy-Queued-At` (api-v1 §7).
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
        if let queuedAt, let id = (typed as? any Identifiable<String>)?.id {
            dateResentCreates(user: user, ids: [id], from: first, queuedAt: queuedAt)
        }
        return typed
    }

    /// api-v1 §7, "Re-sends of creates": a create a re-send wrote counts from when it was queued, as a given-back
    /// create counts from its item's time (api-v1 §15.1) — its incarnation and its fields. A replay wrote nothing.
    func dateResentCreates(user: String, ids: [String], from first: Int64, queuedAt: Date) {
        let dated = ResentCreate.dated(queuedAt: queuedAt.millisecondsSince1970, now: nowMilliseconds)
        let wanted = Set(ids.map { $0.lowercased() })
        state.withLock { state in
            for entry in state.changes.reversed() {
                guard entry.id >= first else { break }
                if entry.userId == user, entry.knownOperation == .create, wanted.contains(entry.entityId) {
                    state.givenBackChanges[entry.id] = dated
                }
            }
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
