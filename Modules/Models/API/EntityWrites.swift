/// The body of a create of one kind of entity (api-v1 §5) and the object the server answers it with: what a network
/// client's generic `create(_:idempotencyKey:)` sends and returns.
public protocol EntityCreateRequest: Encodable, Sendable {
    /// The object the server answers the create with.
    associatedtype Answer: Decodable, Sendable, ReplayableAnswer
    /// The kind of entity it creates.
    static var entityType: MutationEntityType { get }
    /// The path under `/api/v1/` it is posted to, each id in it passed through `segment` (the client's escaping):
    /// its kind's collection, or, for a property definition, its event type's (api-v1 §5.4).
    func createPath(segment: (String) -> String) -> String
}

/// The body of an update (`PUT`) of one kind of entity (api-v1 §5) and the object the server answers it with: what a
/// network client's generic `update(id:_:idempotencyKey:)` sends and returns.
public protocol EntityUpdateRequest: Encodable, Sendable {
    /// The object the server answers the update with: the entity as it now stands.
    associatedtype Answer: Decodable, Sendable, ReplayableAnswer
    /// The kind of entity it updates.
    static var entityType: MutationEntityType { get }
}

extension EntityCreateRequest {
    public func createPath(segment: (String) -> String) -> String { Self.entityType.pathComponent }
}

extension CreateEventTypeRequest: EntityCreateRequest {
    public typealias Answer = APIEventType
    public static var entityType: MutationEntityType { .eventType }
}

extension CreateEventRequest: EntityCreateRequest {
    public typealias Answer = APIEvent
    public static var entityType: MutationEntityType { .event }
}

extension CreateGeofenceRequest: EntityCreateRequest {
    public typealias Answer = APIGeofence
    public static var entityType: MutationEntityType { .geofence }
}

extension CreatePropertyDefinitionRequest: EntityCreateRequest {
    public typealias Answer = APIPropertyDefinition
    public static var entityType: MutationEntityType { .propertyDefinition }
    /// `event-types/{eventTypeId}/properties` (api-v1 §5.4).
    public func createPath(segment: (String) -> String) -> String {
        "\(MutationEntityType.eventType.pathComponent)/\(segment(eventTypeId))/properties"
    }
}

/// A field table whose entity the API writes with a `FieldPatch` (api-v1 §3.5): the kind it belongs to and the object
/// an update answers with. `UpdateEventTypeRequest`, `UpdateGeofenceRequest` and `UpdatePropertyDefinitionRequest` are
/// patches of these.
public protocol PatchedFields: EntityFields {
    /// The server object of the entity.
    associatedtype ServerObject: Decodable, Sendable, ReplayableAnswer
    /// The kind of entity the fields belong to.
    static var entityType: MutationEntityType { get }
}

extension EventTypeFields: PatchedFields {
    public typealias ServerObject = APIEventType
    public static var entityType: MutationEntityType { .eventType }
}

extension GeofenceFields: PatchedFields {
    public typealias ServerObject = APIGeofence
    public static var entityType: MutationEntityType { .geofence }
}

extension PropertyDefinitionFields: PatchedFields {
    public typealias ServerObject = APIPropertyDefinition
    public static var entityType: MutationEntityType { .propertyDefinition }
}

extension FieldPatch: EntityUpdateRequest where Fields: PatchedFields {
    public typealias Answer = Fields.ServerObject
    public static var entityType: MutationEntityType { Fields.entityType }
}

extension UpdateEventRequest: EntityUpdateRequest {
    public typealias Answer = APIEvent
    public static var entityType: MutationEntityType { .event }
}
