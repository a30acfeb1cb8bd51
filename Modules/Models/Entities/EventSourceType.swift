/// Where an event came from. Unknown wire or stored values read as `manual`.
public enum EventSourceType: String, Sendable, Hashable, CaseIterable, Codable {
    case manual
    case imported
    case geofence
    case healthkit

    public init(lenient rawValue: String) {
        self = EventSourceType(rawValue: rawValue) ?? .manual
    }

    public init(from decoder: any Decoder) throws {
        self.init(lenient: (try? decoder.singleValueContainer().decode(String.self)) ?? "")
    }
}
