/// The four synced entity types. `allCases` is the dependency order: parents come first.
public enum MutationEntityType: String, Sendable, Hashable, CaseIterable, Codable {
    case eventType = "event_type"
    case geofence
    case propertyDefinition = "property_definition"
    case event

    /// The REST collection name (`/api/v1/<pathComponent>/{id}`).
    public var pathComponent: String {
        switch self {
        case .eventType: "event-types"
        case .geofence: "geofences"
        case .propertyDefinition: "property-definitions"
        case .event: "events"
        }
    }
}

/// What a mutation does to its entity.
public enum MutationOperation: String, Sendable, Hashable, CaseIterable, Codable {
    case create
    case update
    case delete
}

/// A mutation is live (`pending`, pushed by the next round) or a dead letter (`failed`, kept for the user).
public enum MutationState: String, Sendable, Hashable, CaseIterable, Codable {
    case pending
    case failed
}
