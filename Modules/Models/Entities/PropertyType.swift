/// The kind of a property definition and of a property value. Unknown values read as `text`.
public enum PropertyType: String, Sendable, Hashable, CaseIterable, Codable {
    case text
    case number
    case boolean
    case date
    case select
    case duration
    case url
    case email

    public init(lenient rawValue: String) {
        self = PropertyType(rawValue: rawValue) ?? .text
    }

    public init(from decoder: any Decoder) throws {
        self.init(lenient: (try? decoder.singleValueContainer().decode(String.self)) ?? "")
    }
}
