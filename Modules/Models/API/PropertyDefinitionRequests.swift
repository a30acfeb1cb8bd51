/// Body of `POST /api/v1/event-types/{id}/properties` (api-v1 §5.4). `event_type_id` repeats the path id.
public struct CreatePropertyDefinitionRequest: Sendable, Hashable {
    public var id: String?
    public var eventTypeId: String
    public var key: String
    public var label: String
    public var propertyType: PropertyType
    /// Omitted when empty (the server stores `[]` as null).
    public var options: [String]
    public var defaultValue: JSONValue?
    public var displayOrder: Int

    public init(
        id: String?,
        eventTypeId: String,
        key: String,
        label: String,
        propertyType: PropertyType,
        options: [String] = [],
        defaultValue: JSONValue? = nil,
        displayOrder: Int = 0
    ) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.key = key
        self.label = label
        self.propertyType = propertyType
        self.options = options
        self.defaultValue = defaultValue
        self.displayOrder = displayOrder
    }

    /// The create body for a local property definition (sync-engine §1.6).
    public init(_ definition: PropertyDefinition) {
        self.init(
            id: definition.id, eventTypeId: definition.eventTypeId, key: definition.key, label: definition.label,
            propertyType: definition.propertyType, options: definition.options,
            defaultValue: definition.defaultValue, displayOrder: definition.displayOrder)
    }
}

extension CreatePropertyDefinitionRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case id, key, label, options
        case eventTypeId = "event_type_id"
        case propertyType = "property_type"
        case defaultValue = "default_value"
        case displayOrder = "display_order"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            eventTypeId: try container.decode(String.self, forKey: .eventTypeId),
            key: try container.decode(String.self, forKey: .key),
            label: try container.decode(String.self, forKey: .label),
            propertyType: try container.decode(PropertyType.self, forKey: .propertyType),
            options: try container.decode([String].self, forKey: .options, default: []),
            defaultValue: try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue),
            displayOrder: try container.decode(Int.self, forKey: .displayOrder, default: 0)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(eventTypeId, forKey: .eventTypeId)
        try container.encode(key, forKey: .key)
        try container.encode(label, forKey: .label)
        try container.encode(propertyType, forKey: .propertyType)
        if !options.isEmpty { try container.encode(options, forKey: .options) }
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
        try container.encode(displayOrder, forKey: .displayOrder)
    }
}

/// Body of `PUT /api/v1/property-definitions/{id}`: `options` is always an array, `display_order` always an
/// integer, `default_value` is `null` when unset.
public struct UpdatePropertyDefinitionRequest: Sendable, Hashable {
    public var key: String?
    public var label: String?
    public var propertyType: PropertyType?
    public var options: [String]?
    public var defaultValue: JSONValue?
    public var displayOrder: Int?

    public init(
        key: String? = nil,
        label: String? = nil,
        propertyType: PropertyType? = nil,
        options: [String]? = nil,
        defaultValue: JSONValue? = nil,
        displayOrder: Int? = nil
    ) {
        self.key = key
        self.label = label
        self.propertyType = propertyType
        self.options = options
        self.defaultValue = defaultValue
        self.displayOrder = displayOrder
    }

    /// The full-state update body for a local property definition (sync-engine §1.6).
    public init(_ definition: PropertyDefinition) {
        self.init(
            key: definition.key, label: definition.label, propertyType: definition.propertyType,
            options: definition.options, defaultValue: definition.defaultValue, displayOrder: definition.displayOrder)
    }
}

extension UpdatePropertyDefinitionRequest: Codable {
    typealias CodingKeys = CreatePropertyDefinitionRequest.CodingKeys

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            key: try container.decodeIfPresent(String.self, forKey: .key),
            label: try container.decodeIfPresent(String.self, forKey: .label),
            propertyType: try container.decodeIfPresent(PropertyType.self, forKey: .propertyType),
            options: try container.decodeIfPresent([String].self, forKey: .options),
            defaultValue: try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue),
            displayOrder: try container.decodeIfPresent(Int.self, forKey: .displayOrder)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeOrNull(key, forKey: .key)
        try container.encodeOrNull(label, forKey: .label)
        try container.encodeOrNull(propertyType, forKey: .propertyType)
        try container.encodeOrNull(options, forKey: .options)
        try container.encodeOrNull(defaultValue, forKey: .defaultValue)
        try container.encodeOrNull(displayOrder, forKey: .displayOrder)
    }
}
