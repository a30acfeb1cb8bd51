import Foundation

/// A geofence as the server returns it (api-v1 §4.4).
public struct APIGeofence: Sendable, Hashable, Identifiable {
    public var id: String
    public var userId: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var radius: Double
    public var eventTypeEntryId: String?
    public var eventTypeExitId: String?
    public var isActive: Bool
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    public var iosRegionIdentifier: String?
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    public init(
        id: String,
        userId: String,
        name: String,
        latitude: Double,
        longitude: Double,
        radius: Double,
        eventTypeEntryId: String? = nil,
        eventTypeExitId: String? = nil,
        isActive: Bool = true,
        notifyOnEntry: Bool = false,
        notifyOnExit: Bool = false,
        iosRegionIdentifier: String? = nil,
        createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.userId = userId
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
        self.updatedAt = updatedAt
    }
}

extension APIGeofence: ReplayableAnswer {}

extension APIGeofence: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, latitude, longitude, radius
        case userId = "user_id"
        case eventTypeEntryId = "event_type_entry_id"
        case eventTypeExitId = "event_type_exit_id"
        case isActive = "is_active"
        case notifyOnEntry = "notify_on_entry"
        case notifyOnExit = "notify_on_exit"
        case iosRegionIdentifier = "ios_region_identifier"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            userId: try container.decode(String.self, forKey: .userId, default: ""),
            name: try container.decode(String.self, forKey: .name, default: ""),
            latitude: try container.decode(Double.self, forKey: .latitude, default: 0),
            longitude: try container.decode(Double.self, forKey: .longitude, default: 0),
            radius: try container.decode(Double.self, forKey: .radius, default: 100),
            eventTypeEntryId: try container.decodeIfPresent(String.self, forKey: .eventTypeEntryId),
            eventTypeExitId: try container.decodeIfPresent(String.self, forKey: .eventTypeExitId),
            isActive: try container.decode(Bool.self, forKey: .isActive, default: true),
            notifyOnEntry: try container.decode(Bool.self, forKey: .notifyOnEntry, default: false),
            notifyOnExit: try container.decode(Bool.self, forKey: .notifyOnExit, default: false),
            iosRegionIdentifier: try container.decodeIfPresent(String.self, forKey: .iosRegionIdentifier),
            createdAt: container.decodeTimestampIfPresent(forKey: .createdAt),
            updatedAt: container.decodeTimestampIfPresent(forKey: .updatedAt)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userId, forKey: .userId)
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
        try container.encodeTimestampIfPresent(createdAt, forKey: .createdAt)
        try container.encodeTimestampIfPresent(updatedAt, forKey: .updatedAt)
    }
}
