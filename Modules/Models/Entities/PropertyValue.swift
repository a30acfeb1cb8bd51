/// One value in an event's `properties` map: `{"type": <property type>, "value": <any JSON>}` (api-v1 §4.5).
public struct PropertyValue: Sendable, Hashable, Codable {
    /// The value's kind.
    public var type: PropertyType
    /// The value, any JSON (`null` included).
    public var value: JSONValue

    /// A value of `type`.
    public init(type: PropertyType, value: JSONValue) {
        self.type = type
        self.value = value
    }

    /// Reads one map entry with the lenient rules of sync-engine §4.10: the entry must be an object with a string
    /// `type`; an unknown type reads as `text`; a missing `value` reads as `null`.
    public init?(json: JSONValue) {
        guard let members = json.objectValue, let type = members["type"]?.stringValue else { return nil }
        self.init(type: PropertyType(lenient: type), value: members["value"] ?? .null)
    }

    /// Reads a whole `properties` object, dropping entries that are not `{type: string, value}`.
    public static func map(from json: JSONValue) -> [String: PropertyValue]? {
        guard let members = json.objectValue else { return nil }
        return members.compactMapValues(PropertyValue.init(json:))
    }

    /// The map entry as JSON: `{"type": …, "value": …}`.
    public var json: JSONValue { .object(["type": .string(type.rawValue), "value": value]) }

    private enum CodingKeys: String, CodingKey {
        case type, value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(PropertyType.self, forKey: .type)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(value, forKey: .value)
    }
}
