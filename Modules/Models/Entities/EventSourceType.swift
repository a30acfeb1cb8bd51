/// Where an event came from. Unknown wire or stored values read as `manual`.
public enum EventSourceType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Logged by the user.
    case manual
    /// Imported from another source (a calendar, a file).
    case imported
    /// Logged by entering or leaving a geofence.
    case geofence
    /// Logged from a HealthKit sample.
    case healthkit

    /// The source `rawValue` names, or `manual` for a value this version does not know.
    public init(lenient rawValue: String) {
        self = EventSourceType(rawValue: rawValue) ?? .manual
    }

    public init(from decoder: any Decoder) throws {
        self.init(lenient: (try? decoder.singleValueContainer().decode(String.self)) ?? "")
    }
}
