import Foundation

/// An event as the server returns it (api-v1 §4.2).
///
/// Decoding is lenient because the original backend answers HealthKit matches with partial objects (empty
/// `user_id`, `event_type_id` and `source_type`, zero-time timestamps): such an object decodes, and
/// `isComplete` tells whether it may be applied as entity state.
///
/// A bootstrap holds every event of an account in memory until its snapshot is complete, so the layout is lean
/// (APIEvent+Storage.swift): the optional fields most events leave empty, and the embedded type, live behind
/// references. The public surface is plain stored-property semantics.
public struct APIEvent: Sendable, Hashable, Identifiable {
    public var id: String
    public var userId: String
    public var eventTypeId: String
    public var timestamp: Date
    public var notes: String?
    public var isAllDay: Bool
    public var sourceType: EventSourceType
    public var properties: [String: PropertyValue]
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Nil when every rare field is nil.
    var rare: Box<RareEventFields>?
    /// Shared by the events of one listing (`Interner`).
    var embeddedType: Box<APIEventType>?

    public var endDate: Date? {
        get { rare?.value.endDate }
        set { updateRare { $0.endDate = newValue } }
    }
    public var externalId: String? {
        get { rare?.value.externalId }
        set { updateRare { $0.externalId = newValue } }
    }
    public var originalTitle: String? {
        get { rare?.value.originalTitle }
        set { updateRare { $0.originalTitle = newValue } }
    }
    public var geofenceId: String? {
        get { rare?.value.geofenceId }
        set { updateRare { $0.geofenceId = newValue } }
    }
    public var locationLatitude: Double? {
        get { rare?.value.locationLatitude }
        set { updateRare { $0.locationLatitude = newValue } }
    }
    public var locationLongitude: Double? {
        get { rare?.value.locationLongitude }
        set { updateRare { $0.locationLongitude = newValue } }
    }
    public var locationName: String? {
        get { rare?.value.locationName }
        set { updateRare { $0.locationName = newValue } }
    }
    public var healthKitSampleId: String? {
        get { rare?.value.healthKitSampleId }
        set { updateRare { $0.healthKitSampleId = newValue } }
    }
    public var healthKitCategory: String? {
        get { rare?.value.healthKitCategory }
        set { updateRare { $0.healthKitCategory = newValue } }
    }
    /// Embedded only on `GET /events` and `GET /events/{id}`; never required.
    public var eventType: APIEventType? {
        get { embeddedType?.value }
        set { embeddedType = newValue.map(Box.init) }
    }

    public init(
        id: String,
        userId: String,
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
        createdAt: Date? = nil,
        updatedAt: Date? = nil,
        eventType: APIEventType? = nil
    ) {
        self.id = id
        self.userId = userId
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.sourceType = sourceType
        self.properties = properties
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.rare = Box(
            RareEventFields(
                endDate: endDate, externalId: externalId, originalTitle: originalTitle, geofenceId: geofenceId,
                locationLatitude: locationLatitude, locationLongitude: locationLongitude, locationName: locationName,
                healthKitSampleId: healthKitSampleId, healthKitCategory: healthKitCategory), unlessEmpty: true)
        self.embeddedType = eventType.map(Box.init)
    }

    /// True when the object carries real state: non-empty `user_id` and `event_type_id`, a non-zero timestamp.
    public var isComplete: Bool {
        !userId.isEmpty && !eventTypeId.isEmpty && !timestamp.isZeroInstant
    }
}

extension APIEvent: Codable {
    enum CodingKeys: String, CodingKey {
        case id, timestamp, notes, properties
        case userId = "user_id"
        case eventTypeId = "event_type_id"
        case isAllDay = "is_all_day"
        case endDate = "end_date"
        case sourceType = "source_type"
        case externalId = "external_id"
        case originalTitle = "original_title"
        case geofenceId = "geofence_id"
        case locationLatitude = "location_latitude"
        case locationLongitude = "location_longitude"
        case locationName = "location_name"
        case healthKitSampleId = "healthkit_sample_id"
        case healthKitCategory = "healthkit_category"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case eventType = "event_type"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            userId: try container.decode(String.self, forKey: .userId, default: ""),
            eventTypeId: try container.decode(String.self, forKey: .eventTypeId, default: ""),
            timestamp: container.decodeTimestampIfPresent(forKey: .timestamp) ?? .zeroInstant,
            notes: try container.decodeIfPresent(String.self, forKey: .notes),
            isAllDay: try container.decode(Bool.self, forKey: .isAllDay, default: false),
            endDate: container.decodeTimestampIfPresent(forKey: .endDate),
            sourceType: try container.decode(EventSourceType.self, forKey: .sourceType, default: .manual),
            externalId: try container.decodeIfPresent(String.self, forKey: .externalId),
            originalTitle: try container.decodeIfPresent(String.self, forKey: .originalTitle),
            geofenceId: try container.decodeIfPresent(String.self, forKey: .geofenceId),
            locationLatitude: try container.decodeIfPresent(Double.self, forKey: .locationLatitude),
            locationLongitude: try container.decodeIfPresent(Double.self, forKey: .locationLongitude),
            locationName: try container.decodeIfPresent(String.self, forKey: .locationName),
            healthKitSampleId: try container.decodeIfPresent(String.self, forKey: .healthKitSampleId),
            healthKitCategory: try container.decodeIfPresent(String.self, forKey: .healthKitCategory),
            properties: (try? container.decodeIfPresent(JSONValue.self, forKey: .properties))
                .flatMap { $0 }.flatMap(PropertyValue.map(from:)) ?? [:],
            createdAt: container.decodeTimestampIfPresent(forKey: .createdAt),
            updatedAt: container.decodeTimestampIfPresent(forKey: .updatedAt),
            eventType: try? container.decodeIfPresent(APIEventType.self, forKey: .eventType)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userId, forKey: .userId)
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
        try container.encodeTimestampIfPresent(createdAt, forKey: .createdAt)
        try container.encodeTimestampIfPresent(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(eventType, forKey: .eventType)
    }
}
