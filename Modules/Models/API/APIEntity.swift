import Foundation

/// One entity as the server returns it from its single `GET` (api-v1 §1): what a read-back writes (sync-engine R4).
public enum APIEntity: Sendable, Hashable {
    /// An event type.
    case eventType(APIEventType)
    /// An event.
    case event(APIEvent)
    /// A geofence.
    case geofence(APIGeofence)
    /// A property definition.
    case propertyDefinition(APIPropertyDefinition)

    /// The entity's kind.
    public var entityType: MutationEntityType {
        switch self {
        case .eventType: .eventType
        case .event: .event
        case .geofence: .geofence
        case .propertyDefinition: .propertyDefinition
        }
    }

    /// The entity's id, as the server spells it.
    public var id: String {
        switch self {
        case .eventType(let type): type.id
        case .event(let event): event.id
        case .geofence(let fence): fence.id
        case .propertyDefinition(let definition): definition.id
        }
    }

    /// The server's `updated_at`: the time it acknowledged this version (sync-engine R15).
    public var updatedAt: Date? {
        switch self {
        case .eventType(let type): type.updatedAt
        case .event(let event): event.updatedAt
        case .geofence(let fence): fence.updatedAt
        case .propertyDefinition(let definition): definition.updatedAt
        }
    }

    /// The acknowledgment this copy stands for, when the server sent its time (sync-engine R15).
    public var acknowledgedVersion: AcknowledgedVersion? {
        updatedAt.map {
            AcknowledgedVersion(
                entityType: entityType, id: id.lowercased(), acknowledgedAt: $0, deleted: false, createdAt: createdAt)
        }
    }

    /// When the server created it (its `created_at`), when the copy says.
    public var createdAt: Date? {
        switch self {
        case .eventType(let type): type.createdAt
        case .event(let event): event.createdAt
        case .geofence(let fence): fence.createdAt
        case .propertyDefinition(let definition): definition.createdAt
        }
    }

    /// The account that owns it.
    public var userId: String {
        switch self {
        case .eventType(let type): type.userId
        case .event(let event): event.userId
        case .geofence(let fence): fence.userId
        case .propertyDefinition(let definition): definition.userId
        }
    }
}

/// One page of a keyset listing of events (api-v1 §5.3.1 `after`).
public struct EventsPage: Sendable, Hashable {
    /// The page's events, newest first.
    public var events: [APIEvent]
    /// The `X-Next-After` token of the answer: the page after this one starts there. Nil on the last page.
    public var nextAfter: String?

    /// A page.
    public init(events: [APIEvent], nextAfter: String?) {
        self.events = events
        self.nextAfter = nextAfter
    }
}
