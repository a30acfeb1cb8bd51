import Foundation
import GRDB
import Models
import Protocols

/// A local entity and its table: the columns in a fixed order, decoded and bound by index.
///
/// One conformance per entity keeps SQL out of the generic store code and lets every statement be prepared
/// once and cached by the connection.
protocol StoredEntity {
    static var entityType: MutationEntityType { get }
    /// Column names; `id` first.
    static var columns: [String] { get }
    var id: String { get set }
    var syncStatus: SyncStatus { get set }
    init(row: Row) throws
    /// Values in `columns` order.
    var databaseValues: [(any DatabaseValueConvertible)?] { get throws }
}

extension StoredEntity {
    static var table: String { entityType.rawValue }
    static var columnList: String { columns.joined(separator: ", ") }
    static var selectSQL: String { "SELECT \(columnList) FROM \(table)" }
    static var findSQL: String { "\(selectSQL) WHERE id = ?" }
    /// Insert, or overwrite every column of the existing row: one statement, touching only changed index entries.
    static var writeSQL: String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(table) (\(columnList)) VALUES (\(placeholders)) ON CONFLICT(id) DO UPDATE SET \(updates)"
    }
}

/// Stored encodings shared by the rows.
enum Column {
    static func milliseconds(_ date: Date) -> Int64 { date.millisecondsSince1970 }
    static func milliseconds(_ date: Date?) -> Int64? { date?.millisecondsSince1970 }
    static func date(_ row: Row, _ index: Int) throws -> Date {
        Date(millisecondsSince1970: try row.decode(Int64.self, atIndex: index))
    }
    static func optionalDate(_ row: Row, _ index: Int) throws -> Date? {
        try row.decode(Int64?.self, atIndex: index).map(Date.init(millisecondsSince1970:))
    }
    static func bool(_ row: Row, _ index: Int) throws -> Bool { try row.decode(Int64.self, atIndex: index) != 0 }

    static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONCoding.encode(value), as: UTF8.self)
    }
}

extension Event: StoredEntity {
    static var entityType: MutationEntityType { .event }
    static let columns = [
        "id", "event_type_id", "timestamp", "notes", "is_all_day", "end_date", "source_type", "external_id",
        "original_title", "geofence_id", "location_latitude", "location_longitude", "location_name",
        "healthkit_sample_id", "healthkit_category", "properties", "sync_status",
    ]

    init(row: Row) throws {
        let propertiesText = try row.decode(String.self, atIndex: 15)
        self.init(
            id: try row.decode(String.self, atIndex: 0),
            eventTypeId: try row.decode(String.self, atIndex: 1),
            timestamp: try Column.date(row, 2),
            notes: try row.decode(String?.self, atIndex: 3),
            isAllDay: try Column.bool(row, 4),
            endDate: try Column.optionalDate(row, 5),
            sourceType: EventSourceType(lenient: try row.decode(String.self, atIndex: 6)),
            externalId: try row.decode(String?.self, atIndex: 7),
            originalTitle: try row.decode(String?.self, atIndex: 8),
            geofenceId: try row.decode(String?.self, atIndex: 9),
            locationLatitude: try row.decode(Double?.self, atIndex: 10),
            locationLongitude: try row.decode(Double?.self, atIndex: 11),
            locationName: try row.decode(String?.self, atIndex: 12),
            healthKitSampleId: try row.decode(String?.self, atIndex: 13),
            healthKitCategory: try row.decode(String?.self, atIndex: 14),
            properties: PropertiesColumn.decode(propertiesText),
            syncStatus: SyncStatus(lenient: try row.decode(String.self, atIndex: 16))
        )
    }

    var databaseValues: [(any DatabaseValueConvertible)?] {
        get throws {
            [
                id, eventTypeId, Column.milliseconds(timestamp), notes, isAllDay, Column.milliseconds(endDate),
                sourceType.rawValue, externalId, originalTitle, geofenceId, locationLatitude, locationLongitude,
                locationName, healthKitSampleId, healthKitCategory, try PropertiesColumn.encode(properties),
                syncStatus.rawValue,
            ]
        }
    }
}

/// The `properties` column: JSON text; text that does not decode reads as `[:]` (sync-engine §1.4).
enum PropertiesColumn {
    static func encode(_ properties: [String: PropertyValue]) throws -> String {
        properties.isEmpty ? "{}" : try Column.json(properties)
    }

    static func decode(_ text: String) -> [String: PropertyValue] {
        guard text != "{}", let json = try? JSONCoding.decode(JSONValue.self, from: Data(text.utf8)) else {
            return [:]
        }
        return PropertyValue.map(from: json) ?? [:]
    }
}

extension EventType: StoredEntity {
    static var entityType: MutationEntityType { .eventType }
    static let columns = ["id", "name", "color", "icon", "created_at", "sync_status"]

    init(row: Row) throws {
        self.init(
            id: try row.decode(String.self, atIndex: 0),
            name: try row.decode(String.self, atIndex: 1),
            color: try row.decode(String.self, atIndex: 2),
            icon: try row.decode(String.self, atIndex: 3),
            createdAt: try Column.date(row, 4),
            syncStatus: SyncStatus(lenient: try row.decode(String.self, atIndex: 5))
        )
    }

    var databaseValues: [(any DatabaseValueConvertible)?] {
        [id, name, color, icon, Column.milliseconds(createdAt), syncStatus.rawValue]
    }
}

extension Geofence: StoredEntity {
    static var entityType: MutationEntityType { .geofence }
    static let columns = [
        "id", "name", "latitude", "longitude", "radius", "event_type_entry_id", "event_type_exit_id", "is_active",
        "notify_on_entry", "notify_on_exit", "ios_region_identifier", "created_at", "sync_status",
    ]

    init(row: Row) throws {
        self.init(
            id: try row.decode(String.self, atIndex: 0),
            name: try row.decode(String.self, atIndex: 1),
            latitude: try row.decode(Double.self, atIndex: 2),
            longitude: try row.decode(Double.self, atIndex: 3),
            radius: try row.decode(Double.self, atIndex: 4),
            eventTypeEntryId: try row.decode(String?.self, atIndex: 5),
            eventTypeExitId: try row.decode(String?.self, atIndex: 6),
            isActive: try Column.bool(row, 7),
            notifyOnEntry: try Column.bool(row, 8),
            notifyOnExit: try Column.bool(row, 9),
            iosRegionIdentifier: try row.decode(String?.self, atIndex: 10),
            createdAt: try Column.date(row, 11),
            syncStatus: SyncStatus(lenient: try row.decode(String.self, atIndex: 12))
        )
    }

    var databaseValues: [(any DatabaseValueConvertible)?] {
        [
            id, name, latitude, longitude, radius, eventTypeEntryId, eventTypeExitId, isActive, notifyOnEntry,
            notifyOnExit, iosRegionIdentifier, Column.milliseconds(createdAt), syncStatus.rawValue,
        ]
    }
}

extension PropertyDefinition: StoredEntity {
    static var entityType: MutationEntityType { .propertyDefinition }
    static let columns = [
        "id", "event_type_id", "key", "label", "property_type", "options", "default_value", "display_order",
        "created_at", "updated_at", "sync_status",
    ]

    init(row: Row) throws {
        let optionsText = try row.decode(String.self, atIndex: 5)
        let defaultText = try row.decode(String?.self, atIndex: 6)
        self.init(
            id: try row.decode(String.self, atIndex: 0),
            eventTypeId: try row.decode(String.self, atIndex: 1),
            key: try row.decode(String.self, atIndex: 2),
            label: try row.decode(String.self, atIndex: 3),
            propertyType: PropertyType(lenient: try row.decode(String.self, atIndex: 4)),
            options: (try? JSONCoding.decode([String].self, from: Data(optionsText.utf8))) ?? [],
            defaultValue: defaultText.flatMap { try? JSONCoding.decode(JSONValue.self, from: Data($0.utf8)) },
            displayOrder: try row.decode(Int.self, atIndex: 7),
            createdAt: try Column.date(row, 8),
            updatedAt: try Column.date(row, 9),
            syncStatus: SyncStatus(lenient: try row.decode(String.self, atIndex: 10))
        )
    }

    var databaseValues: [(any DatabaseValueConvertible)?] {
        get throws {
            [
                id, eventTypeId, key, label, propertyType.rawValue, try Column.json(options),
                try defaultValue.map(Column.json), displayOrder, Column.milliseconds(createdAt),
                Column.milliseconds(updatedAt), syncStatus.rawValue,
            ]
        }
    }
}
