/// The kind of a property definition and of a property value. Unknown values read as `text`.
public enum PropertyType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Free text.
    case text
    /// A number.
    case number
    /// True or false.
    case boolean
    /// An instant, as RFC 3339 text.
    case date
    /// One of the definition's `options`.
    case select
    /// A length of time, in seconds.
    case duration
    /// A web address.
    case url
    /// An email address.
    case email

    /// The kind `rawValue` names, or `text` for a value this version does not know.
    public init(lenient rawValue: String) {
        self = PropertyType(rawValue: rawValue) ?? .text
    }

    public init(from decoder: any Decoder) throws {
        self.init(lenient: (try? decoder.singleValueContainer().decode(String.self)) ?? "")
    }
}
