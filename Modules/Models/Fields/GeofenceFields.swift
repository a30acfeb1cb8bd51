/// The fields of a geofence a user edits, defined once (`EntityFields`).
public struct GeofenceFields: EntityFields {
    /// Unique among the user's geofences.
    public var name: String
    /// The centre's latitude, −90…90.
    public var latitude: Double
    /// The centre's longitude, −180…180.
    public var longitude: Double
    /// Metres.
    public var radius: Double
    /// The event type an entry logs; nil logs nothing.
    public var eventTypeEntryId: String?
    /// The event type an exit logs; nil logs nothing.
    public var eventTypeExitId: String?
    /// False pauses the geofence without deleting it.
    public var isActive: Bool
    /// Whether the app notifies on entry.
    public var notifyOnEntry: Bool
    /// Whether the app notifies on exit.
    public var notifyOnExit: Bool
    /// Set by updates only: the client sends the stored value, else the geofence id.
    public var iosRegionIdentifier: String?

    /// Fields; what is not given is the default of a new geofence.
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
