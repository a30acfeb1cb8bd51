import Foundation
import Models

/// Reads the `--json` entity shapes back (export files), strictly: a required member that is missing or of the wrong
/// type is an error naming where it is, e.g. `events[3].timestamp`.
struct EntityReader {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, at path: String) throws(CLIError) {
        guard case .object(let members) = value else { throw .invalidInput("\(path) must be an object") }
        self.members = members
        self.path = path
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    private func wrong(_ key: String, _ expected: String) -> CLIError {
        .invalidInput("\(path).\(key) must be \(expected)")
    }

    func string(_ key: String) throws(CLIError) -> String {
        guard let value = try optionalString(key) else { throw .invalidInput("\(path).\(key) is missing") }
        return value
    }

    func optionalString(_ key: String) throws(CLIError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let text) = value else { throw wrong(key, "a string") }
        return text
    }

    /// A lowercase canonical UUID, as every id is.
    func id(_ key: String) throws(CLIError) -> String {
        guard let value = try optionalId(key) else { throw .invalidInput("\(path).\(key) is missing") }
        return value
    }

    func optionalId(_ key: String) throws(CLIError) -> String? {
        guard let text = try optionalString(key) else { return nil }
        guard UUID(uuidString: text) != nil else { throw wrong(key, "a UUID") }
        return text.lowercased()
    }

    func time(_ key: String) throws(CLIError) -> Date {
        guard let value = try optionalTime(key) else { throw .invalidInput("\(path).\(key) is missing") }
        return value
    }

    func optionalTime(_ key: String) throws(CLIError) -> Date? {
        guard let text = try optionalString(key) else { return nil }
        guard let date = RFC3339.date(from: text) else { throw wrong(key, "an RFC 3339 time") }
        return date
    }

    func number(_ key: String) throws(CLIError) -> Double {
        guard let value = try optionalNumber(key) else { throw .invalidInput("\(path).\(key) is missing") }
        return value
    }

    func optionalNumber(_ key: String) throws(CLIError) -> Double? {
        guard let value = present(key) else { return nil }
        guard case .number(let number) = value else { throw wrong(key, "a number") }
        return number
    }

    func bool(_ key: String, default fallback: Bool) throws(CLIError) -> Bool {
        guard let value = present(key) else { return fallback }
        guard case .bool(let flag) = value else { throw wrong(key, "true or false") }
        return flag
    }

    func properties(_ key: String) throws(CLIError) -> [String: PropertyValue] {
        guard let value = present(key) else { return [:] }
        guard case .object(let entries) = value else { throw wrong(key, "an object") }
        var properties: [String: PropertyValue] = [:]
        for (name, entry) in entries {
            guard let property = PropertyValue(json: entry) else {
                throw .invalidInput("\(path).\(key).\(name) must be {\"type\": …, \"value\": …}")
            }
            properties[name] = property
        }
        return properties
    }

    // MARK: Entities

    static func eventType(_ value: JSONValue, at path: String) throws(CLIError) -> EventType {
        let reader = try EntityReader(value, at: path)
        return EventType(
            id: try reader.id("id"), name: try reader.string("name"), color: try reader.string("color"),
            icon: try reader.string("icon"), createdAt: try reader.time("created_at"))
    }

    static func event(_ value: JSONValue, at path: String) throws(CLIError) -> Event {
        let reader = try EntityReader(value, at: path)
        var event = Event(
            id: try reader.id("id"), eventTypeId: try reader.id("event_type_id"),
            timestamp: try reader.time("timestamp"))
        event.notes = try reader.optionalString("notes")
        event.isAllDay = try reader.bool("is_all_day", default: false)
        event.endDate = try reader.optionalTime("end_date")
        if let source = try reader.optionalString("source_type") {
            guard let type = EventSourceType(rawValue: source) else {
                throw .invalidInput("\(path).source_type must be manual, imported, geofence or healthkit")
            }
            event.sourceType = type
        }
        event.externalId = try reader.optionalString("external_id")
        event.originalTitle = try reader.optionalString("original_title")
        event.geofenceId = try reader.optionalId("geofence_id")
        event.locationLatitude = try reader.optionalNumber("location_latitude")
        event.locationLongitude = try reader.optionalNumber("location_longitude")
        event.locationName = try reader.optionalString("location_name")
        event.healthKitSampleId = try reader.optionalString("healthkit_sample_id")
        event.healthKitCategory = try reader.optionalString("healthkit_category")
        event.properties = try reader.properties("properties")
        return event
    }

    static func geofence(_ value: JSONValue, at path: String) throws(CLIError) -> Geofence {
        let reader = try EntityReader(value, at: path)
        return Geofence(
            id: try reader.id("id"), name: try reader.string("name"), latitude: try reader.number("latitude"),
            longitude: try reader.number("longitude"), radius: try reader.number("radius"),
            eventTypeEntryId: try reader.optionalId("event_type_entry_id"),
            eventTypeExitId: try reader.optionalId("event_type_exit_id"),
            isActive: try reader.bool("is_active", default: true),
            notifyOnEntry: try reader.bool("notify_on_entry", default: false),
            notifyOnExit: try reader.bool("notify_on_exit", default: false),
            iosRegionIdentifier: try reader.optionalString("ios_region_identifier"),
            createdAt: try reader.time("created_at"))
    }

    static func propertyDefinition(_ value: JSONValue, at path: String) throws(CLIError) -> PropertyDefinition {
        let reader = try EntityReader(value, at: path)
        let kind = try reader.string("property_type")
        guard let type = PropertyType(rawValue: kind) else {
            throw .invalidInput("\(path).property_type \"\(kind)\" is not a property type")
        }
        var options: [String] = []
        if let value = reader.members["options"], value != .null {
            guard case .array(let items) = value, let strings = Optional(items.compactMap(\.stringValue)),
                strings.count == items.count
            else { throw .invalidInput("\(path).options must be an array of strings") }
            options = strings
        }
        let order = try reader.optionalNumber("display_order") ?? 0
        guard order == order.rounded(), abs(order) < 1e9 else {
            throw .invalidInput("\(path).display_order must be an integer")
        }
        let createdAt = try reader.time("created_at")
        return PropertyDefinition(
            id: try reader.id("id"), eventTypeId: try reader.id("event_type_id"), key: try reader.string("key"),
            label: try reader.string("label"), propertyType: type, options: options,
            defaultValue: reader.members["default_value"].flatMap { $0 == .null ? nil : $0 }, displayOrder: Int(order),
            createdAt: createdAt, updatedAt: try reader.optionalTime("updated_at") ?? createdAt)
    }
}
