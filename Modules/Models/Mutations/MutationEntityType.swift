/// The four synced entity types. `allCases` is the dependency order: parents come first.
public enum MutationEntityType: String, Sendable, Hashable, CaseIterable, Codable {
    /// `EventType`.
    case eventType = "event_type"
    /// `Geofence`.
    case geofence
    /// `PropertyDefinition`.
    case propertyDefinition = "property_definition"
    /// `Event`.
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
    /// A POST of the whole entity.
    case create
    /// A PUT of the fields that changed.
    case update
    /// A DELETE.
    case delete
}

/// A mutation is live (`pending`, pushed by the next round) or a dead letter (`failed`, kept for the user).
public enum MutationState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Live: the next round sends it.
    case pending
    /// A dead letter: the server refused it; `queue retry` or `queue discard` decide.
    case failed
}
