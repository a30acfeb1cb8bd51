import Foundation

/// A property definition as the server returns it (api-v1 §4.3).
public struct APIPropertyDefinition: Sendable, Hashable, Identifiable {
    public var id: String
    public var userId: String
    public var eventTypeId: String
    public var key: String
    public var label: String
    public var propertyType: PropertyType
    public var options: [String]
    public var defaultValue: JSONValue?
    public var displayOrder: Int
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    public init(
        id: String,
        userId: String,
        eventTypeId: String,
        key: String,
        label: String,
        propertyType: PropertyType,
        options: [String] = [],
        defaultValue: JSONValue? = nil,
        displayOrder: Int = 0,
        createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.userId = userId
        self.eventTypeId = eventTypeId
        self.key = key
        self.label = label
        self.propertyType = propertyType
        self.options = options
        self.defaultValue = defaultValue
        self.displayOrder = displayOrder
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension APIPropertyDefinition: ReplayableAnswer {}

extension APIPropertyDefinition: Codable {
    enum CodingKeys: String, CodingKey {
        case id, key, label, options
        case userId = "user_id"
        case eventTypeId = "event_type_id"
        case propertyType = "property_type"
        case defaultValue = "default_value"
        case displayOrder = "display_order"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            userId: try container.decode(String.self, forKey: .userId, default: ""),
            eventTypeId: try container.decode(String.self, forKey: .eventTypeId, default: ""),
            key: try container.decode(String.self, forKey: .key, default: ""),
            label: try container.decode(String.self, forKey: .label, default: ""),
            propertyType: try container.decode(PropertyType.self, forKey: .propertyType, default: .text),
            options: try container.decode([String].self, forKey: .options, default: []),
            defaultValue: try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue),
            displayOrder: try container.decode(Int.self, forKey: .displayOrder, default: 0),
            createdAt: container.decodeTimestampIfPresent(forKey: .createdAt),
            updatedAt: container.decodeTimestampIfPresent(forKey: .updatedAt)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userId, forKey: .userId)
        try container.encode(eventTypeId, forKey: .eventTypeId)
        try container.encode(key, forKey: .key)
        try container.encode(label, forKey: .label)
        try container.encode(propertyType, forKey: .propertyType)
        if !options.isEmpty { try container.encode(options, forKey: .options) }
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
        try container.encode(displayOrder, forKey: .displayOrder)
        try container.encodeTimestampIfPresent(createdAt, forKey: .createdAt)
        try container.encodeTimestampIfPresent(updatedAt, forKey: .updatedAt)
    }
}
