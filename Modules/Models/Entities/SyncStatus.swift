/// Informational per-row sync status (sync-engine §1.3). The engine decides from the queue, never from this.
public enum SyncStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case pending
    case synced
    case failed

    /// Unknown stored values read as `pending`.
    public init(lenient rawValue: String) {
        self = SyncStatus(rawValue: rawValue) ?? .pending
    }

    public init(from decoder: any Decoder) throws {
        self.init(lenient: try decoder.singleValueContainer().decode(String.self))
    }
}
