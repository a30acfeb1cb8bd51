import Foundation

/// A property definition as the server returns it (api-v1 §4.3). Its fields are `PropertyDefinitionFields`.
public struct APIPropertyDefinition: ServerObject, Identifiable {
    public var id: String
    public var userId: String
    /// The event type whose events carry it.
    public var eventTypeId: String
    public var fields: PropertyDefinitionFields
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    /// A definition as a server answers it.
    public init(
        id: String, userId: String, eventTypeId: String, fields: PropertyDefinitionFields, createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.userId = userId
        self.eventTypeId = eventTypeId
        self.fields = fields
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension APIPropertyDefinition: ReplayableAnswer {}

extension APIPropertyDefinition: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decode(String.self, forKey: "id"),
            userId: try container.decode(String.self, forKey: "user_id", default: ""),
            eventTypeId: try container.decode(String.self, forKey: "event_type_id", default: ""),
            fields: try PropertyDefinitionFields(from: container, reading: .serverData),
            createdAt: container.decodeTimestampIfPresent(forKey: "created_at"),
            updatedAt: container.decodeTimestampIfPresent(forKey: "updated_at"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encode(id, forKey: "id")
        try container.encode(userId, forKey: "user_id")
        try container.encode(eventTypeId, forKey: "event_type_id")
        try fields.encode(to: &container)
        try container.encodeTimestampIfPresent(createdAt, forKey: "created_at")
        try container.encodeTimestampIfPresent(updatedAt, forKey: "updated_at")
    }
}
