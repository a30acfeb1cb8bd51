import Foundation

/// A typed field that events of one type can carry (sync-engine §1.4).
public struct PropertyDefinition: Sendable, Hashable, Identifiable {
    public var id: String
    public var eventTypeId: String
    public var key: String
    public var label: String
    public var propertyType: PropertyType
    /// Choices for `select`; a `null` from the server clears it to `[]`.
    public var options: [String]
    public var defaultValue: JSONValue?
    public var displayOrder: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var syncStatus: SyncStatus

    public init(
        id: String,
        eventTypeId: String,
        key: String,
        label: String,
        propertyType: PropertyType = .text,
        options: [String] = [],
        defaultValue: JSONValue? = nil,
        displayOrder: Int = 0,
        createdAt: Date,
        updatedAt: Date,
        syncStatus: SyncStatus = .pending
    ) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.key = key
        self.label = label
        self.propertyType = propertyType
        self.options = options
        self.defaultValue = defaultValue
        self.displayOrder = displayOrder
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.syncStatus = syncStatus
    }

    public static func placeholder(id: String, eventTypeId: String, at now: Date) -> PropertyDefinition {
        let now = now.roundedToMilliseconds
        return PropertyDefinition(
            id: id, eventTypeId: eventTypeId, key: "placeholder", label: "Placeholder", createdAt: now, updatedAt: now,
            syncStatus: .synced)
    }
}

extension PropertyDefinition: Codable {
    enum CodingKeys: String, CodingKey {
        case id, key, label, options
        case eventTypeId = "event_type_id"
        case propertyType = "property_type"
        case defaultValue = "default_value"
        case displayOrder = "display_order"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case syncStatus = "sync_status"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let createdAt = try container.decodeTimestamp(forKey: .createdAt)
        self.init(
            id: try container.decodeId(forKey: .id),
            eventTypeId: try container.decodeId(forKey: .eventTypeId),
            key: try container.decode(String.self, forKey: .key),
            label: try container.decode(String.self, forKey: .label),
            propertyType: try container.decodeKnown(PropertyType.self, forKey: .propertyType),
            options: try container.decode([String].self, forKey: .options, default: []),
            defaultValue: try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue)
                .flatMap { $0 == .null ? nil : $0 },
            displayOrder: try container.decode(Int.self, forKey: .displayOrder, default: 0),
            createdAt: createdAt,
            updatedAt: try container.decodeTimestampStrictlyIfPresent(forKey: .updatedAt) ?? createdAt,
            syncStatus: try container.decode(SyncStatus.self, forKey: .syncStatus, default: .pending)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(eventTypeId, forKey: .eventTypeId)
        try container.encode(key, forKey: .key)
        try container.encode(label, forKey: .label)
        try container.encode(propertyType, forKey: .propertyType)
        if !options.isEmpty { try container.encode(options, forKey: .options) }
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
        try container.encode(displayOrder, forKey: .displayOrder)
        try container.encodeTimestamp(createdAt, forKey: .createdAt)
        try container.encodeTimestamp(updatedAt, forKey: .updatedAt)
        try container.encode(syncStatus, forKey: .syncStatus)
    }
}
