import Foundation

/// Body of `POST /api/v1/events` and one item of a batch (api-v1 §5.3.3).
///
/// Nil optionals are omitted; `is_all_day`, `source_type` and `properties` are always written.
public struct CreateEventRequest: Sendable, Hashable {
    public var id: String?
    public var eventTypeId: String
    public var timestamp: Date
    public var notes: String?
    public var isAllDay: Bool
    public var endDate: Date?
    public var sourceType: EventSourceType
    public var externalId: String?
    public var originalTitle: String?
    public var geofenceId: String?
    public var locationLatitude: Double?
    public var locationLongitude: Double?
    public var locationName: String?
    public var healthKitSampleId: String?
    public var healthKitCategory: String?
    public var properties: [String: PropertyValue]

    public init(
        id: String?,
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
        properties: [String: PropertyValue] = [:]
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
    }

    /// The create body for a local event (sync-engine §1.6).
    public init(_ event: Event) {
        self.init(
            id: event.id, eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes,
            isAllDay: event.isAllDay, endDate: event.endDate, sourceType: event.sourceType,
            externalId: event.externalId, originalTitle: event.originalTitle, geofenceId: event.geofenceId,
            locationLatitude: event.locationLatitude, locationLongitude: event.locationLongitude,
            locationName: event.locationName, healthKitSampleId: event.healthKitSampleId,
            healthKitCategory: event.healthKitCategory, properties: event.properties)
    }
}

extension CreateEventRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case id, timestamp, notes, properties
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
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            eventTypeId: try container.decode(String.self, forKey: .eventTypeId),
            timestamp: try container.decodeTimestamp(forKey: .timestamp),
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
            properties: try container.decode([String: PropertyValue].self, forKey: .properties, default: [:])
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
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
        try container.encode(properties, forKey: .properties)
    }
}

/// Body of `PUT /api/v1/events/{id}`: the create keys minus `id`, every key written, nil as `null`.
///
/// On the server `null` clears the clearable fields (api-v1 §3.5) and leaves the others unchanged, so a body
/// built from the full local state makes the stored row equal the local row.
public struct UpdateEventRequest: Sendable, Hashable {
    public var eventTypeId: String?
    public var timestamp: Date?
    public var notes: String?
    public var isAllDay: Bool?
    public var endDate: Date?
    public var sourceType: EventSourceType?
    public var externalId: String?
    public var originalTitle: String?
    public var geofenceId: String?
    public var locationLatitude: Double?
    public var locationLongitude: Double?
    public var locationName: String?
    public var healthKitSampleId: String?
    public var healthKitCategory: String?
    public var properties: [String: PropertyValue]?

    public init(
        eventTypeId: String? = nil,
        timestamp: Date? = nil,
        notes: String? = nil,
        isAllDay: Bool? = nil,
        endDate: Date? = nil,
        sourceType: EventSourceType? = nil,
        externalId: String? = nil,
        originalTitle: String? = nil,
        geofenceId: String? = nil,
        locationLatitude: Double? = nil,
        locationLongitude: Double? = nil,
        locationName: String? = nil,
        healthKitSampleId: String? = nil,
        healthKitCategory: String? = nil,
        properties: [String: PropertyValue]? = nil
    ) {
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
    }

    /// The full-state update body for a local event (sync-engine §1.6).
    public init(_ event: Event) {
        self.init(
            eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes, isAllDay: event.isAllDay,
            endDate: event.endDate, sourceType: event.sourceType, externalId: event.externalId,
            originalTitle: event.originalTitle, geofenceId: event.geofenceId,
            locationLatitude: event.locationLatitude, locationLongitude: event.locationLongitude,
            locationName: event.locationName, healthKitSampleId: event.healthKitSampleId,
            healthKitCategory: event.healthKitCategory, properties: event.properties)
    }
}

extension UpdateEventRequest: Codable {
    typealias CodingKeys = CreateEventRequest.CodingKeys

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            eventTypeId: try container.decodeIfPresent(String.self, forKey: .eventTypeId),
            timestamp: container.decodeTimestampIfPresent(forKey: .timestamp),
            notes: try container.decodeIfPresent(String.self, forKey: .notes),
            isAllDay: try container.decodeIfPresent(Bool.self, forKey: .isAllDay),
            endDate: container.decodeTimestampIfPresent(forKey: .endDate),
            sourceType: try container.decodeIfPresent(EventSourceType.self, forKey: .sourceType),
            externalId: try container.decodeIfPresent(String.self, forKey: .externalId),
            originalTitle: try container.decodeIfPresent(String.self, forKey: .originalTitle),
            geofenceId: try container.decodeIfPresent(String.self, forKey: .geofenceId),
            locationLatitude: try container.decodeIfPresent(Double.self, forKey: .locationLatitude),
            locationLongitude: try container.decodeIfPresent(Double.self, forKey: .locationLongitude),
            locationName: try container.decodeIfPresent(String.self, forKey: .locationName),
            healthKitSampleId: try container.decodeIfPresent(String.self, forKey: .healthKitSampleId),
            healthKitCategory: try container.decodeIfPresent(String.self, forKey: .healthKitCategory),
            properties: try container.decodeIfPresent([String: PropertyValue].self, forKey: .properties)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeOrNull(eventTypeId, forKey: .eventTypeId)
        try container.encodeTimestampOrNull(timestamp, forKey: .timestamp)
        try container.encodeOrNull(notes, forKey: .notes)
        try container.encodeOrNull(isAllDay, forKey: .isAllDay)
        try container.encodeTimestampOrNull(endDate, forKey: .endDate)
        try container.encodeOrNull(sourceType, forKey: .sourceType)
        try container.encodeOrNull(externalId, forKey: .externalId)
        try container.encodeOrNull(originalTitle, forKey: .originalTitle)
        try container.encodeOrNull(geofenceId, forKey: .geofenceId)
        try container.encodeOrNull(locationLatitude, forKey: .locationLatitude)
        try container.encodeOrNull(locationLongitude, forKey: .locationLongitude)
        try container.encodeOrNull(locationName, forKey: .locationName)
        try container.encodeOrNull(healthKitSampleId, forKey: .healthKitSampleId)
        try container.encodeOrNull(healthKitCategory, forKey: .healthKitCategory)
        try container.encodeOrNull(properties, forKey: .properties)
    }
}

/// Body of `POST /api/v1/events/batch`: 1–500 create items.
public struct BatchCreateEventsRequest: Sendable, Hashable, Codable {
    public var events: [CreateEventRequest]

    public init(events: [CreateEventRequest]) {
        self.events = events
    }
}
