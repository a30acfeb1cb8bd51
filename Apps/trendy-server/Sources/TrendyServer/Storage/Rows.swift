import Foundation
import Models

/// Server rows as API objects. Times are stored as Unix milliseconds; JSON columns hold canonical JSON text.
enum Rows {
    static let eventTypeColumns = (["id", "user_id"] + EventTypeFields.keys + ["created_at", "updated_at"])
        .joined(separator: ", ")

    static func eventType(_ row: any StorageRow) throws -> APIEventType { try eventType(row, from: 0) }

    /// The type in the `eventTypeColumns` that start at column `first`.
    static func eventType(_ row: any StorageRow, from first: Int) throws -> APIEventType {
        let afterFields = first + 2 + EventTypeFields.fields.count
        return APIEventType(
            id: try row.decode(String.self, atIndex: first), userId: try row.decode(String.self, atIndex: first + 1),
            fields: try EventTypeFields(row, from: first + 2),
            createdAt: try row.decode(Int64.self, atIndex: afterFields).date,
            updatedAt: try row.decode(Int64.self, atIndex: afterFields + 1).date)
    }

    /// The optional fields' columns come last, named by their keys (`EventDetails.fields`).
    static let eventColumnNames =
        [
            "id", "user_id", "event_type_id", "timestamp", "notes", "is_all_day", "source_type", "properties",
            "created_at", "updated_at",
        ] + EventDetails.keys
    static let eventColumns = eventColumnNames.joined(separator: ", ")
    static let firstDetailColumn = 10

    static func event(_ row: any StorageRow) throws -> APIEvent {
        APIEvent(
            id: try row.decode(String.self, atIndex: 0),
            userId: try row.decode(String.self, atIndex: 1),
            eventTypeId: try row.decode(String.self, atIndex: 2),
            timestamp: try row.decode(Int64.self, atIndex: 3).date,
            notes: try row.decode(String?.self, atIndex: 4),
            isAllDay: try row.decode(Bool.self, atIndex: 5),
            sourceType: EventSourceType(lenient: try row.decode(String.self, atIndex: 6)),
            details: try details(row),
            properties: properties(try row.decode(String.self, atIndex: 7)),
            createdAt: try row.decode(Int64.self, atIndex: 8).date,
            updatedAt: try row.decode(Int64.self, atIndex: 9).date)
    }

    /// `event` as its row reads back once written with `propertiesText`: times to the millisecond, the properties
    /// parsed from their stored text.
    static func eventAsStored(_ event: APIEvent, propertiesText: String) -> APIEvent {
        var stored = event
        stored.timestamp = event.timestamp.millisecondsSince1970.date
        for field in EventDetails.fields {
            if case .time(let date)? = stored.details[field] {
                stored.details[field] = .time(date.millisecondsSince1970.date)
            }
        }
        stored.properties = properties(propertiesText)
        return stored
    }

    /// The optional fields from their columns: text, a double, or Unix milliseconds.
    static func details(_ row: any StorageRow) throws -> EventDetails {
        var details = EventDetails()
        for (offset, field) in EventDetails.fields.enumerated() {
            let column = firstDetailColumn + offset
            guard !row.isNull(column) else { continue }
            switch field.kind {
            case .text, .id: details[field] = .text(try row.decode(String.self, atIndex: column))
            case .time: details[field] = .time(try row.decode(Int64.self, atIndex: column).date)
            case .coordinate: details[field] = .number(try row.decode(Double.self, atIndex: column))
            }
        }
        return details
    }

    /// The optional fields' column values, in `eventColumnNames` order.
    static func detailValues(_ details: EventDetails) -> [any SQLValueConvertible] {
        EventDetails.fields.map { field -> SQLValue in
            switch details[field] {
            case .text(let text)?: .text(text)
            case .number(let number)?: .real(number)
            case .time(let date)?: .integer(date.millisecondsSince1970)
            case nil: .null
            }
        }
    }

    static func properties(_ text: String) -> [String: PropertyValue] {
        ((try? JSONText.parse(text)).flatMap(PropertyValue.map(from:))) ?? [:]
    }

    static func propertiesText(_ properties: [String: JSONValue]) -> String { JSONText.string(.object(properties)) }

    static let geofenceColumns = (["id", "user_id"] + GeofenceFields.keys + ["created_at", "updated_at"])
        .joined(separator: ", ")

    static func geofence(_ row: any StorageRow) throws -> APIGeofence {
        let afterFields = 2 + GeofenceFields.fields.count
        return APIGeofence(
            id: try row.decode(String.self, atIndex: 0),
            userId: try row.decode(String.self, atIndex: 1),
            fields: try GeofenceFields(row, from: 2),
            createdAt: try row.decode(Int64.self, atIndex: afterFields).date,
            updatedAt: try row.decode(Int64.self, atIndex: afterFields + 1).date)
    }

    static let propertyDefinitionColumns =
        (["id", "user_id", "event_type_id"] + PropertyDefinitionFields.keys + ["created_at", "updated_at"])
        .joined(separator: ", ")

    static func propertyDefinition(_ row: any StorageRow) throws -> APIPropertyDefinition {
        let afterFields = 3 + PropertyDefinitionFields.fields.count
        return APIPropertyDefinition(
            id: try row.decode(String.self, atIndex: 0),
            userId: try row.decode(String.self, atIndex: 1),
            eventTypeId: try row.decode(String.self, atIndex: 2),
            fields: try PropertyDefinitionFields(row, from: 3),
            createdAt: try row.decode(Int64.self, atIndex: afterFields).date,
            updatedAt: try row.decode(Int64.self, atIndex: afterFields + 1).date)
    }
}
