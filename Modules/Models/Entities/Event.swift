import Foundation

/// A logged occurrence of an event type: the local row (sync-engine §1.4).
///
/// Codable with the API field names plus `sync_status`; unset optionals are omitted, times are RFC 3339 UTC
/// with milliseconds. That is the shape `trendyctl --json` prints, export writes and import reads — the one
/// definition of an event's fields outside the wire and the database. Decoding is strict (ids are UUIDs, times
/// parse, enums are known), as a file a user hands in deserves; server data goes through the API types instead.
public struct Event: Sendable, Hashable, Identifiable {
    public var id: String
    /// The parent type. No foreign key: an event whose type is not stored locally is an allowed orphan.
    public var eventTypeId: String
    public var timestamp: Date
    public var notes: String?
    public var isAllDay: Bool
    public var endDate: Date?
    public var sourceType: EventSourceType
    /// Never used for de-duplication.
    public var externalId: String?
    public var originalTitle: String?
    public var geofenceId: String?
    /// Set together with `locationLongitude`, or both nil.
    public var locationLatitude: Double?
    public var locationLongitude: Double?
    public var locationName: String?
    public var healthKitSampleId: String?
    public var healthKitCategory: String?
    public var properties: [String: PropertyValue]
    public var syncStatus: SyncStatus

    public init(
        id: String,
        eventTypeId: String,
        timestamp: Date,
        notes: String? = nil,
        isAllDay: Bool = false,
        endDate: Date? = nil,
        sourceType: EventSourceType = .manual,
        externalId: String? = nil,
        originalTitle: String? = nil,
        geofenceId: String? = nil,
        locationLatitude: Double? = nil,
        locationLongitude: Double? = nil,
        locationName: String? = nil,
        healthKitSampleId: String? = nil,
        healthKitCategory: String? = nil,
        properties: [String: PropertyValue] = [:],
        syncStatus: SyncStatus = .pending
    ) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.endDate = endDate
        self.sourceType = sourceType
        self.externalId = externalId
        self.originalTitle = originalTitle
        self.geofenceId = geofenceId
        self.locationLatitude = locationLatitude
        self.locationLongitude = locationLongitude
        self.locationName = locationName
        self.healthKitSampleId = healthKitSampleId
        self.healthKitCategory = healthKitCategory
        self.properties = properties
        self.syncStatus = syncStatus
    }

    /// The members of the `Codable` shape, in a fixed order, `sync_status` last: export's CSV columns follow it.
    public static let fieldNames = CodingKeys.allCases.map(\.stringValue)

    /// The row an upsert inserts before server fields are applied (§2.4): `event_type_id = ""`, now, defaults.
    public static func placeholder(id: String, at now: Date) -> Event {
        Event(id: id, eventTypeId: "", timestamp: now.roundedToMilliseconds, syncStatus: .synced)
    }
}

extension Event: Codable {
    /// In the order of `fieldNames` (CSV columns); JSON output sorts its keys regardless.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id
        case eventTypeId = "event_type_id"
        case timestamp
        case endDate = "end_date"
        case isAllDay = "is_all_day"
        case notes
        case sourceType = "source_type"
        case externalId = "external_id"
        case originalTitle = "original_title"
        case geofenceId = "geofence_id"
        case locationLatitude = "location_latitude"
        case locationLongitude = "location_longitude"
        case locationName = "location_name"
        case healthKitSampleId = "healthkit_sample_id"
        case healthKitCategory = "healthkit_category"
        case properties
        case syncStatus = "sync_status"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeId(forKey: .id),
            eventTypeId: try container.decodeId(forKey: .eventTypeId),
            timestamp: try container.decodeTimestamp(forKey: .timestamp),
            notes: try container.decodeIfPresent(String.self, forKey: .notes),
            isAllDay: try container.decode(Bool.self, forKey: .isAllDay, default: false),
            endDate: try container.decodeTimestampStrictlyIfPresent(forKey: .endDate),
            sourceType: try container.decodeKnownIfPresent(EventSourceType.self, forKey: .sourceType) ?? .manual,
            externalId: try container.decodeIfPresent(String.self, forKey: .externalId),
            originalTitle: try container.decodeIfPresent(String.self, forKey: .originalTitle),
            geofenceId: try container.decodeIdIfPresent(forKey: .geofenceId),
            locationLatitude: try container.decodeIfPresent(Double.self, forKey: .locationLatitude),
            locationLongitude: try container.decodeIfPresent(Double.self, forKey: .locationLongitude),
            locationName: try container.decodeIfPresent(String.self, forKey: .locationName),
            healthKitSampleId: try container.decodeIfPresent(String.self, forKey: .healthKitSampleId),
            healthKitCategory: try container.decodeIfPresent(String.self, forKey: .healthKitCategory),
            properties: try container.decode([String: PropertyValue].self, forKey: .properties, default: [:]),
            syncStatus: try container.decode(SyncStatus.self, forKey: .syncStatus, default: .pending)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(eventTypeId, forKey: .eventTypeId)
        try container.encodeTimestamp(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(notes, forKey: .notes)
        try container.encode(isAllDay, forKey: .isAllDay)
        try container.encodeTimestampIfPresent(endDate, forKey: .endDate)
        try container.encode(sourceType, forKey: .sourceType)
        try container.encodeIfPresent(externalId, forKey: .externalId)
        try container.encodeIfPresent(originalTitle, forKey: .originalTitle)
        try container.encodeIfPresent(geofenceId, forKey: .geofenceId)
        try container.encodeIfPresent(locationLatitude, forKey: .locationLatitude)
        try container.encodeIfPresent(locationLongitude, forKey: .locationLongitude)
        try container.encodeIfPresent(locationName, forKey: .locationName)
        try container.encodeIfPresent(healthKitSampleId, forKey: .healthKitSampleId)
        try container.encodeIfPresent(healthKitCategory, forKey: .healthKitCategory)
        if !properties.isEmpty { try container.encode(properties, forKey: .properties) }
        try container.encode(syncStatus, forKey: .syncStatus)
    }
}
