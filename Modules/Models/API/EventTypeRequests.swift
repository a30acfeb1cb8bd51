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

/// Body of `PUT /api/v1/event-types/{id}`. Every key is written; nil is an explicit `null` (= unchanged here).
public struct UpdateEventTypeRequest: Sendable, Hashable, Codable {
    public var name: String?
    public var color: String?
    public var icon: String?

    public init(name: String?, color: String?, icon: String?) {
        self.name = name
        self.color = color
        self.icon = icon
    }

    /// The full-state update body for a local event type (sync-engine §1.6).
    public init(_ eventType: EventType) {
        self.init(name: eventType.name, color: eventType.color, icon: eventType.icon)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeOrNull(name, forKey: .name)
        try container.encodeOrNull(color, forKey: .color)
        try container.encodeOrNull(icon, forKey: .icon)
    }
}
