import Foundation

/// A kind of event the user tracks (sync-engine §1.4). Its fields are `EventTypeFields`.
public struct EventType: DeviceRecord {
    /// A UUID (sync-engine §1.1), lowercased.
    public var id: String
    /// Its name, colour and icon.
    public var fields: EventTypeFields
    /// Now at local creation; the server's value once server data is applied.
    public var createdAt: Date
    /// The stored sync status (sync-engine §1.2).
    public var syncStatus: SyncStatus

    /// A type with these fields.
    public init(id: String, fields: EventTypeFields, createdAt: Date, syncStatus: SyncStatus = .pending) {
        self.id = id
        self.fields = fields
        self.createdAt = createdAt
        self.syncStatus = syncStatus
    }

    /// A type with these fields, the default colour and icon unless given.
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

    /// The colour of a type created without one.
    public static let defaultColor = "#007AFF"
    /// The icon (an SF Symbol name) of a type created without one.
    public static let defaultIcon = "circle.fill"

    /// The row an upsert inserts before server data fills it in (sync-engine §2.4): `synced`, named "Placeholder".
    public static func placeholder(id: String, at now: Date) -> EventType {
        EventType(id: id, name: "Placeholder", createdAt: now.roundedToMilliseconds, syncStatus: .synced)
    }
}
