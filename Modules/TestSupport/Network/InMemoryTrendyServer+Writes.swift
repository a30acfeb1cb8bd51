import Foundation
import Models
import Protocols

/// The model's writes by kind, as a client's generic calls send them (sync-engine §2.1): one dispatch to the routes
/// each kind has, so that `MockNetworkClient` forwards every create, update and delete the same way.
extension InMemoryTrendyServer {
    /// The create route of the request's kind.
    public func create<Request: EntityCreateRequest>(
        user: String, _ request: Request, key: String?
    ) throws(NetworkError) -> Request.Answer {
        let answer: any Sendable =
            switch request {
            case let request as CreateEventTypeRequest: try createEventType(user: user, request, key: key)
            case let request as CreateEventRequest: try createEvent(user: user, request, key: key)
            case let request as CreateGeofenceRequest: try createGeofence(user: user, request, key: key)
            case let request as CreatePropertyDefinitionRequest:
                try createPropertyDefinition(user: user, eventTypeId: request.eventTypeId, request, key: key)
            default: Self.unknownKind(Request.self)
            }
        return Self.typed(answer, as: Request.Answer.self)
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
