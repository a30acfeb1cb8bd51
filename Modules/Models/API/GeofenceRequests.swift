/// Body of `POST /api/v1/geofences` (api-v1 §5.5). The client always sends `id`, `is_active` and both notify
/// flags; it does not send `ios_region_identifier` on create.
public struct CreateGeofenceRequest: Sendable, Hashable {
    public var id: String?
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var radius: Double
    public var eventTypeEntryId: String?
    public var eventTypeExitId: String?
    public var isActive: Bool
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool

    public init(
        id: String?,
        name: String,
        latitude: Double,
        longitude: Double,
        radius: Double,
        eventTypeEntryId: String? = nil,
        eventTypeExitId: String? = nil,
        isActive: Bool = true,
        notifyOnEntry: Bool = false,
        notifyOnExit: Bool = false
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
    }

    /// The create body for a local geofence (sync-engine §1.6).
    public init(_ geofence: Geofence) {
        self.init(
            id: geofence.id, name: geofence.name, latitude: geofence.latitude, longitude: geofence.longitude,
            radius: geofence.radius, eventTypeEntryId: geofence.eventTypeEntryId,
            eventTypeExitId: geofence.eventTypeExitId, isActive: geofence.isActive,
            notifyOnEntry: geofence.notifyOnEntry, notifyOnExit: geofence.notifyOnExit)
    }
}

extension CreateGeofenceRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, latitude, longitude, radius
        case eventTypeEntryId = "event_type_entry_id"
        case eventTypeExitId = "event_type_exit_id"
        case isActive = "is_active"
        case notifyOnEntry = "notify_on_entry"
        case notifyOnExit = "notify_on_exit"
        case iosRegionIdentifier = "ios_region_identifier"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude),
            radius: try container.decode(Double.self, forKey: .radius),
            eventTypeEntryId: try container.decodeIfPresent(String.self, forKey: .eventTypeEntryId),
            eventTypeExitId: try container.decodeIfPresent(String.self, forKey: .eventTypeExitId),
            isActive: try container.decode(Bool.self, forKey: .isActive, default: true),
            notifyOnEntry: try container.decode(Bool.self, forKey: .notifyOnEntry, default: false),
            notifyOnExit: try container.decode(Bool.self, forKey: .notifyOnExit, default: false)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(radius, forKey: .radius)
        try container.encodeIfPresent(eventTypeEntryId, forKey: .eventTypeEntryId)
        try container.encodeIfPresent(eventTypeExitId, forKey: .eventTypeExitId)
        try container.encode(isActive, forKey: .isActive)
        try container.encode(notifyOnEntry, forKey: .notifyOnEntry)
        try container.encode(notifyOnExit, forKey: .notifyOnExit)
    }
}

/// Body of `PUT /api/v1/geofences/{id}`: a partial update (api-v1 §3.5) — a nil field is left out, except that the
/// clearable references named in `cleared` are sent as `null`.
public struct UpdateGeofenceRequest: Sendable, Hashable {
    public var name: String?
    public var latitude: Double?
    public var longitude: Double?
    public var radius: Double?
    public var eventTypeEntryId: String?
    public var eventTypeExitId: String?
    public var isActive: Bool?
    public var notifyOnEntry: Bool?
    public var notifyOnExit: Bool?
    public var iosRegionIdentifier: String?
    /// Wire keys sent as `null`: `event_type_entry_id`, `event_type_exit_id` (the clearable fields).
    public var cleared: Set<String>

    /// The clearable fields of a geofence (api-v1 §3.5).
    public static let clearable: Set<String> = ["event_type_entry_id", "event_type_exit_id"]

    public init(
        name: String? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        radius: Double? = nil,
        eventTypeEntryId: String? = nil,
        eventTypeExitId: String? = nil,
        isActive: Bool? = nil,
        notifyOnEntry: Bool? = nil,
        notifyOnExit: Bool? = nil,
        iosRegionIdentifier: String? = nil,
        cleared: Set<String> = []
    ) {
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
        self.cleared = cleared
    }

    /// Every field of a local geofence, unset references as `null`; `ios_region_identifier` is the stored value,
    /// else the geofence id: the state a patch is taken from (sync-engine R1).
    public init(_ geofence: Geofence) {
        self.init(
            name: geofence.name, latitude: geofence.latitude, longitude: geofence.longitude, radius: geofence.radius,
            eventTypeEntryId: geofence.eventTypeEntryId, eventTypeExitId: geofence.eventTypeExitId,
            isActive: geofence.isActive, notifyOnEntry: geofence.notifyOnEntry, notifyOnExit: geofence.notifyOnExit,
            iosRegionIdentifier: geofence.iosRegionIdentifier ?? geofence.id,
            cleared: Self.clearable.filter { key in
                (key == "event_type_entry_id" ? geofence.eventTypeEntryId : geofence.eventTypeExitId) == nil
            })
    }
}

extension UpdateGeofenceRequest: Codable {
    typealias CodingKeys = CreateGeofenceRequest.CodingKeys

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decodeIfPresent(String.self, forKey: .name),
            latitude: try container.decodeIfPresent(Double.self, forKey: .latitude),
            longitude: try container.decodeIfPresent(Double.self, forKey: .longitude),
            radius: try container.decodeIfPresent(Double.self, forKey: .radius),
            eventTypeEntryId: try container.decodeIfPresent(String.self, forKey: .eventTypeEntryId),
            eventTypeExitId: try container.decodeIfPresent(String.self, forKey: .eventTypeExitId),
            isActive: try container.decodeIfPresent(Bool.self, forKey: .isActive),
            notifyOnEntry: try container.decodeIfPresent(Bool.self, forKey: .notifyOnEntry),
            notifyOnExit: try container.decodeIfPresent(Bool.self, forKey: .notifyOnExit),
            iosRegionIdentifier: try container.decodeIfPresent(String.self, forKey: .iosRegionIdentifier),
            cleared: try container.nullKeys(Self.clearable)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(latitude, forKey: .latitude)
        try container.encodeIfPresent(longitude, forKey: .longitude)
        try container.encodeIfPresent(radius, forKey: .radius)
        try container.encode(eventTypeEntryId, forKey: .eventTypeEntryId, cleared: cleared)
        try container.encode(eventTypeExitId, forKey: .eventTypeExitId, cleared: cleared)
        try container.encodeIfPresent(isActive, forKey: .isActive)
        try container.encodeIfPresent(notifyOnEntry, forKey: .notifyOnEntry)
        try container.encodeIfPresent(notifyOnExit, forKey: .notifyOnExit)
        try container.encodeIfPresent(iosRegionIdentifier, forKey: .iosRegionIdentifier)
    }
}
