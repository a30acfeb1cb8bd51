import Foundation

/// A kind of event the user tracks (sync-engine §1.4).
public struct EventType: Sendable, Hashable, Identifiable {
    public var id: String
    public var name: String
    public var color: String
    public var icon: String
    /// Now at local creation; the server's value once server data is applied.
    public var createdAt: Date
    public var syncStatus: SyncStatus

    public init(
        id: String,
        name: String,
        color: String = EventType.defaultColor,
        icon: String = EventType.defaultIcon,
        createdAt: Date,
        syncStatus: SyncStatus = .pending
    ) {
        self.id = id
        self.name = name
        self.color = color
        self.icon = icon
        self.createdAt = createdAt
        self.syncStatus = syncStatus
    }

    public static let defaultColor = "#007AFF"
    public static let defaultIcon = "circle.fill"

    public static func placeholder(id: String, at now: Date) -> EventType {
        EventType(id: id, name: "Placeholder", createdAt: now.roundedToMilliseconds, syncStatus: .synced)
    }
}

extension EventType: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, color, icon
        case createdAt = "created_at"
        case syncStatus = "sync_status"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeId(forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            color: try container.decode(String.self, forKey: .color, default: EventType.defaultColor),
            icon: try container.decode(String.self, forKey: .icon, default: EventType.defaultIcon),
            createdAt: try container.decodeTimestamp(forKey: .createdAt),
            syncStatus: try container.decode(SyncStatus.self, forKey: .syncStatus, default: .pending)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(color, forKey: .color)
        try container.encode(icon, forKey: .icon)
        try container.encodeTimestamp(createdAt, forKey: .createdAt)
        try container.encode(syncStatus, forKey: .syncStatus)
    }
}
