import Foundation

/// A circular region that can log events on entry or exit (sync-engine §1.4).
public struct Geofence: Sendable, Hashable, Identifiable {
    public var id: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var radius: Double
    public var eventTypeEntryId: String?
    public var eventTypeExitId: String?
    public var isActive: Bool
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    public var iosRegionIdentifier: String?
    public var createdAt: Date
    public var syncStatus: SyncStatus

    public init(
        id: String,
        name: String,
        latitude: Double,
        longitude: Double,
        radius: Double = 100,
        eventTypeEntryId: String? = nil,
        eventTypeExitId: String? = nil,
        isActive: Bool = true,
        notifyOnEntry: Bool = false,
        notifyOnExit: Bool = false,
        iosRegionIdentifier: String? = nil,
        createdAt: Date,
        syncStatus: SyncStatus = .pending
    ) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.eventTypeEntryId = eventTypeEntryId
        self.eventTypeExitId = eventTypeExitId
        self.isActive = isActive
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.iosRegionIdentifier = iosRegionIdentifier
        self.createdAt = createdAt
        self.syncStatus = syncStatus
    }

    public static func placeholder(id: String, at now: Date) -> Geofence {
        Geofence(
            id: id, name: "Placeholder", latitude: 0, longitude: 0, createdAt: now.roundedToMilliseconds,
            syncStatus: .synced)
    }
}

extension Geofence: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, latitude, longitude, radius
        case eventTypeEntryId = "event_type_entry_id"
        case eventTypeExitId = "event_type_exit_id"
        case isActive = "is_active"
        case notifyOnEntry = "notify_on_entry"
        case notifyOnExit = "notify_on_exit"
        case iosRegionIdentifier = "ios_region_identifier"
        case createdAt = "created_at"
        case syncStatus = "sync_status"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeId(forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude),
            radius: try container.decode(Double.self, forKey: .radius, default: 100),
            eventTypeEntryId: try container.decodeIdIfPresent(forKey: .eventTypeEntryId),
            eventTypeExitId: try container.decodeIdIfPresent(forKey: .eventTypeExitId),
            isActive: try container.decode(Bool.self, forKey: .isActive, default: true),
            notifyOnEntry: try container.decode(Bool.self, forKey: .notifyOnEntry, default: false),
            notifyOnExit: try container.decode(Bool.self, forKey: .notifyOnExit, default: false),
            iosRegionIdentifier: try container.decodeIfPresent(String.self, forKey: .iosRegionIdentifier),
            createdAt: try container.decodeTimestamp(forKey: .createdAt),
            syncStatus: try container.decode(SyncStatus.self, forKey: .syncStatus, default: .pending)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(radius, forKey: .radius)
        try container.encodeIfPresent(eventTypeEntryId, forKey: .eventTypeEntryId)
        try container.encodeIfPresent(eventTypeExitId, forKey: .eventTypeExitId)
        try container.encode(isActive, forKey: .isActive)
        try container.encode(notifyOnEntry, forKey: .notifyOnEntry)
        try container.encode(notifyOnExit, forKey: .notifyOnExit)
        try container.encodeIfPresent(iosRegionIdentifier, forKey: .iosRegionIdentifier)
        try container.encodeTimestamp(createdAt, forKey: .createdAt)
        try container.encode(syncStatus, forKey: .syncStatus)
    }
}
