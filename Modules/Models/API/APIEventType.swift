import Foundation

/// An event type as the server returns it (api-v1 §4.1).
public struct APIEventType: Sendable, Hashable, Identifiable {
    public var id: String
    public var userId: String
    public var name: String
    public var color: String
    public var icon: String
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    public init(
        id: String, userId: String, name: String, color: String, icon: String, createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.userId = userId
        self.name = name
        self.color = color
        self.icon = icon
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension APIEventType: ReplayableAnswer {}

extension APIEventType: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, color, icon
        case userId = "user_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            userId: try container.decode(String.self, forKey: .userId, default: ""),
            name: try container.decode(String.self, forKey: .name, default: ""),
            color: try container.decode(String.self, forKey: .color, default: EventType.defaultColor),
            icon: try container.decode(String.self, forKey: .icon, default: EventType.defaultIcon),
            createdAt: container.decodeTimestampIfPresent(forKey: .createdAt),
            updatedAt: container.decodeTimestampIfPresent(forKey: .updatedAt)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userId, forKey: .userId)
        try container.encode(name, forKey: .name)
        try container.encode(color, forKey: .color)
        try container.encode(icon, forKey: .icon)
        try container.encodeTimestampIfPresent(createdAt, forKey: .createdAt)
        try container.encodeTimestampIfPresent(updatedAt, forKey: .updatedAt)
    }
}
