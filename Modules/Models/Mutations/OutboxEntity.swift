/// A local entity the outbox carries (sync-engine §1.6): the kind its mutations name and the request bodies made
/// from it. `MutationPayload` encodes, patches and folds any of them the same way.
public protocol OutboxEntity {
    /// The body of its create.
    associatedtype CreateRequest: Codable
    /// The body of its update.
    associatedtype UpdateRequest: Codable
    /// The kind its mutations name.
    static var entityType: MutationEntityType { get }
    /// The entity as a create body (`POST`).
    var createRequest: CreateRequest { get }
    /// The entity's full state as an update body (`PUT`): the base a patch is taken from.
    var updateRequest: UpdateRequest { get }
}

extension EventType: OutboxEntity {
    public static var entityType: MutationEntityType { .eventType }
    public var createRequest: CreateEventTypeRequest { CreateEventTypeRequest(self) }
    public var updateRequest: UpdateEventTypeRequest { UpdateEventTypeRequest(self) }
}

extension Event: OutboxEntity {
    public static var entityType: MutationEntityType { .event }
    public var createRequest: CreateEventRequest { CreateEventRequest(self) }
    public var updateRequest: UpdateEventRequest { UpdateEventRequest(self) }
}

extension Geofence: OutboxEntity {
    public static var entityType: MutationEntityType { .geofence }
    public var createRequest: CreateGeofenceRequest { CreateGeofenceRequest(self) }
    public var updateRequest: UpdateGeofenceRequest { UpdateGeofenceRequest(self) }
}

extension PropertyDefinition: OutboxEntity {
    public static var entityType: MutationEntityType { .propertyDefinition }
    public var createRequest: CreatePropertyDefinitionRequest { CreatePropertyDefinitionRequest(self) }
    public var updateRequest: UpdatePropertyDefinitionRequest { UpdatePropertyDefinitionRequest(self) }
}

extension MutationEntityType {
    /// The entity a mutation of this kind carries.
    public var outboxEntity: any OutboxEntity.Type {
        switch self {
        case .eventType: EventType.self
        case .event: Event.self
        case .geofence: Geofence.self
        case .propertyDefinition: PropertyDefinition.self
        }
    }
}
