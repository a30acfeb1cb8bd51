/// Body of `POST /api/v1/event-types` (api-v1 §5.2). The client always sends `id`.
public struct CreateEventTypeRequest: Sendable, Hashable, Codable {
    public var id: String?
    public var name: String
    public var color: String
    public var icon: String

    public init(id: String?, name: String, color: String, icon: String) {
        self.id = id
        self.name = name
        self.color = color
        self.icon = icon
    }

    /// The create body for a local event type (sync-engine §1.6).
    public init(_ eventType: EventType) {
        self.init(id: eventType.id, name: eventType.name, color: eventType.color, icon: eventType.icon)
    }
}

/// Body of `PUT /api/v1/event-types/{id}`: a partial update (api-v1 §3.5) — a nil field is left out and stays as
/// it is on the server. None of an event type's fields is clearable.
public struct UpdateEventTypeRequest: Sendable, Hashable, Codable {
    public var name: String?
    public var color: String?
    public var icon: String?

    public init(name: String? = nil, color: String? = nil, icon: String? = nil) {
        self.name = name
        self.color = color
        self.icon = icon
    }

    /// Every field of a local event type: the state a patch is taken from (sync-engine R1).
    public init(_ eventType: EventType) {
        self.init(name: eventType.name, color: eventType.color, icon: eventType.icon)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(color, forKey: .color)
        try container.encodeIfPresent(icon, forKey: .icon)
    }
}
