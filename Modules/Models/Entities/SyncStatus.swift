/// Informational per-row sync status (sync-engine §1.3). The engine decides from the queue, never from this.
public enum SyncStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Changed here and not yet acknowledged by the server.
    case pending
    /// As the server last had it.
    case synced
    /// Its change became a dead letter.
    case failed

    /// Unknown stored values read as `pending`.
    public init(lenient rawValue: String) {
        self = SyncStatus(rawValue: rawValue) ?? .pending
    }

    public init(from decoder: any Decoder) throws {
        self.init(lenient: try decoder.singleValueContainer().decode(String.self))
    }
}
