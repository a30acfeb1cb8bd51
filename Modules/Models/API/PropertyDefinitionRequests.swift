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

/// Body of `PUT /api/v1/property-definitions/{id}`: a partial update (api-v1 §3.5) — a nil field is left out,
/// except that the clearable fields named in `cleared` are sent as `null` (`options` then clears to `[]`).
public struct UpdatePropertyDefinitionRequest: Sendable, Hashable {
    public var key: String?
    public var label: String?
    public var propertyType: PropertyType?
    public var options: [String]?
    public var defaultValue: JSONValue?
    public var displayOrder: Int?
    /// Wire keys sent as `null`: `options`, `default_value` (the clearable fields).
    public var cleared: Set<String>

    /// The clearable fields of a property definition (api-v1 §3.5).
    public static let clearable: Set<String> = ["options", "default_value"]

    public init(
        key: String? = nil,
        label: String? = nil,
        propertyType: PropertyType? = nil,
        options: [String]? = nil,
        defaultValue: JSONValue? = nil,
        displayOrder: Int? = nil,
        cleared: Set<String> = []
    ) {
        self.key = key
        self.label = label
        self.propertyType = propertyType
        self.options = options
        self.defaultValue = defaultValue
        self.displayOrder = displayOrder
        self.cleared = cleared
    }

    /// Every field of a local property definition (`options` always an array, an unset default as `null`): the
    /// state a patch is taken from (sync-engine R1).
    public init(_ definition: PropertyDefinition) {
        self.init(
            key: definition.key, label: definition.label, propertyType: definition.propertyType,
            options: definition.options, defaultValue: definition.defaultValue, displayOrder: definition.displayOrder,
            cleared: definition.defaultValue == nil ? ["default_value"] : [])
    }
}

extension UpdatePropertyDefinitionRequest: Codable {
    typealias CodingKeys = CreatePropertyDefinitionRequest.CodingKeys

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaultValue = try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue)
        self.init(
            key: try container.decodeIfPresent(String.self, forKey: .key),
            label: try container.decodeIfPresent(String.self, forKey: .label),
            propertyType: try container.decodeIfPresent(PropertyType.self, forKey: .propertyType),
            options: try container.decodeIfPresent([String].self, forKey: .options),
            defaultValue: defaultValue == .null ? nil : defaultValue,
            displayOrder: try container.decodeIfPresent(Int.self, forKey: .displayOrder),
            cleared: try container.nullKeys(Self.clearable)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(propertyType, forKey: .propertyType)
        try container.encode(options, forKey: .options, cleared: cleared)
        try container.encode(defaultValue, forKey: .defaultValue, cleared: cleared)
        try container.encodeIfPresent(displayOrder, forKey: .displayOrder)
    }
}
