/// Body of `POST /api/v1/event-types/{id}/properties` (api-v1 §5.4). `event_type_id` repeats the path id; empty
/// `options` are left out (the server stores `[]` as null).
public struct CreatePropertyDefinitionRequest: HoldsFields, Sendable, Hashable {
    /// The id the client chose; nil lets the server choose.
    public var id: String?
    /// The event type it belongs to: the path's id.
    public var eventTypeId: String
    public var fields: PropertyDefinitionFields

    /// A body of these fields (those a create carries).
    public init(id: String?, eventTypeId: String, fields: PropertyDefinitionFields) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.fields = fields.forCreate
    }

    /// A body of these fields.
    public init(
        id: String?, eventTypeId: String, key: String, label: String, propertyType: PropertyType,
        options: [String] = [], defaultValue: JSONValue? = nil, displayOrder: Int = 0
    ) {
        self.init(
            id: id, eventTypeId: eventTypeId,
            fields: PropertyDefinitionFields(
                key: key, label: label, propertyType: propertyType, options: options, defaultValue: defaultValue,
                displayOrder: displayOrder))
    }

    /// The create body for a local property definition (sync-engine §1.6).
    public init(_ definition: PropertyDefinition) {
        self.init(id: definition.id, eventTypeId: definition.eventTypeId, fields: definition.fields)
    }
}

extension CreatePropertyDefinitionRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: "id"),
            eventTypeId: try container.decode(String.self, forKey: "event_type_id"),
            fields: try PropertyDefinitionFields(from: container, reading: .request))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeIfPresent(id, forKey: "id")
        try container.encode(eventTypeId, forKey: "event_type_id")
        try fields.encode(to: &container, creating: true)
    }
}

/// Body of `PUT /api/v1/property-definitions/{id}`: a partial update (api-v1 §3.5) — a field it does not set stays
/// as it is, the clearable fields in `cleared` are sent as `null` (`options` then clears to `[]`).
public typealias UpdatePropertyDefinitionRequest = FieldPatch<PropertyDefinitionFields>

extension FieldPatch where Fields == PropertyDefinitionFields {
    /// Every field of a local property definition (`options` always an array, an unset default as `null`): the
    /// state a patch is taken from (sync-engine R1).
    public init(_ definition: PropertyDefinition) { self.init(everyFieldOf: definition.fields) }
}
