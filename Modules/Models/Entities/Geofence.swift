import Foundation

/// A circular region that can log events on entry or exit (sync-engine §1.4). Its fields are `GeofenceFields`.
public struct Geofence: DeviceRecord {
    /// A UUID (sync-engine §1.1), lowercased.
    public var id: String
    /// Its name, centre, radius, event types and flags.
    public var fields: GeofenceFields
    /// Now at local creation; the server's value once server data is applied.
    public var createdAt: Date
    /// The stored sync status (sync-engine §1.2).
    public var syncStatus: SyncStatus

    /// A geofence with these fields.
    public init(id: String, fields: GeofenceFields, createdAt: Date, syncStatus: SyncStatus = .pending) {
        self.id = id
        self.fields = fields
        self.createdAt = createdAt
        self.syncStatus = syncStatus
    }

    /// A geofence with the fields most callers set; the others take their defaults.
    public init(
        id: String, name: String, latitude: Double, longitude: Double, radius: Double = 100,
        eventTypeEntryId: String? = nil, eventTypeExitId: String? = nil, isActive: Bool = true,
        createdAt: Date, syncStatus: SyncStatus = .pending
    ) {
        self.init(
            id: id,
            fields: GeofenceFields(
                name: name, latitude: latitude, longitude: longitude, radius: radius,
                eventTypeEntryId: eventTypeEntryId,
                eventTypeExitId: eventTypeExitId, isActive: isActive),
            createdAt: createdAt, syncStatus: syncStatus)
    }

    /// The event types it names: its entry type, then its exit type, where set.
    public var eventTypeIds: [String] { [fields.eventTypeEntryId, fields.eventTypeExitId].compactMap { $0 } }

    /// The row an upsert inserts before server data fills it in (sync-engine §2.4): `synced`, named "Placeholder".
    public static func placeholder(id: String, at now: Date) -> Geofence {
        Geofence(
            id: id, name: "Placeholder", latitude: 0, longitude: 0, createdAt: now.roundedToMilliseconds,
            syncStatus: .synced)
    }
}
