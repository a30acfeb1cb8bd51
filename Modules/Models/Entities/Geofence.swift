import Foundation

/// A circular region that can log events on entry or exit (sync-engine §1.4). Its fields are `GeofenceFields`.
public struct Geofence: DeviceRecord {
    public var id: String
    public var fields: GeofenceFields
    public var createdAt: Date
    public var syncStatus: SyncStatus

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

    public static func placeholder(id: String, at now: Date) -> Geofence {
        Geofence(
            id: id, name: "Placeholder", latitude: 0, longitude: 0, createdAt: now.roundedToMilliseconds,
            syncStatus: .synced)
    }
}
