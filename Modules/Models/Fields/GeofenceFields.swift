/// The fields of a geofence a user edits, defined once (`EntityFields`).
public struct GeofenceFields: EntityFields {
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
    /// Set by updates only: the client sends the stored value, else the geofence id.
    public var iosRegionIdentifier: String?

    public init(
        name: String = "",
        latitude: Double = 0,
        longitude: Double = 0,
        radius: Double = 100,
        eventTypeEntryId: String? = nil,
        eventTypeExitId: String? = nil,
        isActive: Bool = true,
        notifyOnEntry: Bool = false,
        notifyOnExit: Bool = false,
        iosRegionIdentifier: String? = nil
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
    }

    public init() { self.init(name: "") }

    public static let fields: [EntityField<GeofenceFields>] = [
        .text("name", \.name),
        .number("latitude", \.latitude, in: -90...90),
        .number("longitude", \.longitude, in: -180...180),
        .number("radius", \.radius, in: 50...10_000, .requiredOnCreate),
        .reference("event_type_entry_id", \.eventTypeEntryId),
        .reference("event_type_exit_id", \.eventTypeExitId),
        .bool("is_active", \.isActive),
        .bool("notify_on_entry", \.notifyOnEntry),
        .bool("notify_on_exit", \.notifyOnExit),
        .optionalText("ios_region_identifier", \.iosRegionIdentifier, clearable: false, onCreate: false),
    ]
}
