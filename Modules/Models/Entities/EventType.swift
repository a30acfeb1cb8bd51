import Foundation

/// A kind of event the user tracks (sync-engine §1.4). Its fields are `EventTypeFields`.
public struct EventType: DeviceRecord {
    public var id: String
    public var fields: EventTypeFields
    /// Now at local creation; the server's value once server data is applied.
    public var createdAt: Date
    public var syncStatus: SyncStatus

    public init(id: String, fields: EventTypeFields, createdAt: Date, syncStatus: SyncStatus = .pending) {
        self.id = id
        self.fields = fields
        self.createdAt = createdAt
        self.syncStatus = syncStatus
    }

    public init(
        id: String,
        name: String,
        color: String = EventType.defaultColor,
        icon: String = EventType.defaultIcon,
        createdAt: Date,
        syncStatus: SyncStatus = .pending
    ) {
        self.init(
            id: id, fields: EventTypeFields(name: name, color: color, icon: icon), createdAt: createdAt,
            syncStatus: syncStatus)
    }

    public static let defaultColor = "#007AFF"
    public static let defaultIcon = "circle.fill"

    public static func placeholder(id: String, at now: Date) -> EventType {
        EventType(id: id, name: "Placeholder", createdAt: now.roundedToMilliseconds, syncStatus: .synced)
    }
}
