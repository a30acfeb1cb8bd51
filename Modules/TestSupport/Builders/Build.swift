import Foundation
import Models

/// Entities and requests with fixed, readable defaults, so a test states only what it is about.
///
/// Ids from `Build.id(_:)` are valid lowercase UUIDv7 strings whose embedded time is the fixed default instant,
/// so they pass the server's version and future-time checks.
public enum Build {
    /// 2026-01-17T01:44:52.123Z.
    public static let instant = Date(millisecondsSince1970: 1_768_614_292_123)

    /// A deterministic UUIDv7 numbered `number` (`019bc9a2-0e1b-7000-8000-00000000002a` for 42).
    public static func id(_ number: Int, at date: Date = instant) -> String {
        let milliseconds = UInt64(date.millisecondsSince1970)
        let time = String(milliseconds, radix: 16).leftPadded(to: 12)
        let tail = String(number, radix: 16).leftPadded(to: 12)
        return "\(time.prefix(8))-\(time.suffix(4))-7000-8000-\(tail)"
    }

    /// A local event type, `pending` unless said otherwise.
    public static func eventType(
        id: String = Build.id(1), name: String = "Coffee", color: String = "#8B4513", icon: String = "cup.and.saucer",
        createdAt: Date = instant, syncStatus: SyncStatus = .pending
    ) -> EventType {
        EventType(id: id, name: name, color: color, icon: icon, createdAt: createdAt, syncStatus: syncStatus)
    }

    /// A local event of the type `Build.id(1)`, `pending` unless said otherwise; `configure` sets the rest.
    public static func event(
        id: String = Build.id(100),
        eventTypeId: String = Build.id(1),
        timestamp: Date = instant,
        notes: String? = nil,
        properties: [String: PropertyValue] = [:],
        syncStatus: SyncStatus = .pending,
        configure: (inout Event) -> Void = { _ in }
    ) -> Event {
        var event = Event(
            id: id, eventTypeId: eventTypeId, timestamp: timestamp, notes: notes, properties: properties,
            syncStatus: syncStatus)
        configure(&event)
        return event
    }

    /// Every optional event field set, each to a value of its kind (`EventDetails.fields`), so that a check using
    /// it covers a field added later without naming it. The id fields hold ids of rows nobody created.
    public static var everyDetail: EventDetails {
        var details = EventDetails()
        for (number, field) in EventDetails.fields.enumerated() {
            details[field] = sample(of: field, number: number)
        }
        return details
    }

    /// A value of the field's kind, different for each `number`.
    public static func sample(of field: EventDetails.Field, number: Int) -> EventDetails.Value {
        switch field.kind {
        case .text: .text("\(field.key) \(number) ✓")
        case .id: .text(id(900 + number))
        case .time: .time(instant.addingTimeInterval(3600 + Double(number)))
        case .coordinate(let range): .number(range.upperBound / 2 - Double(number) / 8)
        }
    }

    /// Every field of a table at a value unlike its default, different for each field; references name `reference`.
    public static func everyField<Fields: EntityFields>(_ type: Fields.Type, reference: String = id(900)) -> Fields {
        var fields = Fields()
        for (number, field) in Fields.fields.enumerated() {
            fields[field] = sample(of: field, number: number, reference: reference)
        }
        return fields
    }

    /// A value of the field's kind unlike its default, different for each `number`.
    public static func sample<Fields: EntityFields>(
        of field: EntityField<Fields>, number: Int, reference: String = id(900)
    ) -> FieldValue {
        let standard = Fields()[field]
        switch field.kind {
        case .text: return .text("\(field.key) \(number) ✓")
        case .id: return .text(reference)
        case .number(let range): return .number(range.upperBound - Double(number) / 8)
        case .integer: return .integer(40 + number)
        case .bool: return .bool(standard != .bool(true))
        case .choice(let allowed): return .text(allowed.last { .text($0) != standard } ?? "")
        case .strings: return .strings(["first \(number)", "second"])
        case .json: return .json(.object(["n": .number(Double(number))]))
        }
    }

    /// A local geofence, `pending` unless said otherwise.
    public static func geofence(
        id: String = Build.id(200), name: String = "Office", latitude: Double = 52.52, longitude: Double = 13.405,
        radius: Double = 150, eventTypeEntryId: String? = nil, eventTypeExitId: String? = nil,
        createdAt: Date = instant, syncStatus: SyncStatus = .pending
    ) -> Geofence {
        Geofence(
            id: id, name: name, latitude: latitude, longitude: longitude, radius: radius,
            eventTypeEntryId: eventTypeEntryId, eventTypeExitId: eventTypeExitId, createdAt: createdAt,
            syncStatus: syncStatus)
    }

    /// A local property definition of the type `Build.id(1)`, `pending` unless said otherwise.
    public static func propertyDefinition(
        id: String = Build.id(300), eventTypeId: String = Build.id(1), key: String = "strength",
        label: String = "Strength", propertyType: PropertyType = .number, options: [String] = [],
        defaultValue: JSONValue? = nil, displayOrder: Int = 0, createdAt: Date = instant,
        syncStatus: SyncStatus = .pending
    ) -> PropertyDefinition {
        PropertyDefinition(
            id: id, eventTypeId: eventTypeId, key: key, label: label, propertyType: propertyType, options: options,
            defaultValue: defaultValue, displayOrder: displayOrder, createdAt: createdAt, updatedAt: createdAt,
            syncStatus: syncStatus)
    }

    /// The body of an event's create.
    public static func createEventRequest(
        id: String = Build.id(100), eventTypeId: String = Build.id(1), timestamp: Date = instant,
        notes: String? = nil
    ) -> CreateEventRequest {
        CreateEventRequest(id: id, eventTypeId: eventTypeId, timestamp: timestamp, notes: notes)
    }

    /// The body of an event type's create.
    public static func createEventTypeRequest(
        id: String = Build.id(1), name: String = "Coffee"
    )
        -> CreateEventTypeRequest
    {
        CreateEventTypeRequest(id: id, name: name, color: "#8B4513", icon: "cup.and.saucer")
    }

    /// The body of a geofence's create.
    public static func createGeofenceRequest(
        id: String = Build.id(200), name: String = "Office"
    )
        -> CreateGeofenceRequest
    {
        CreateGeofenceRequest(id: id, name: name, latitude: 52.52, longitude: 13.405, radius: 150)
    }

    /// The body of a property definition's create.
    public static func createPropertyDefinitionRequest(
        id: String = Build.id(300), eventTypeId: String = Build.id(1), key: String = "strength"
    ) -> CreatePropertyDefinitionRequest {
        CreatePropertyDefinitionRequest(
            id: id, eventTypeId: eventTypeId, key: key, label: "Strength", propertyType: .number)
    }

    /// A live mutation row as the store would insert it.
    public static func mutation(
        _ operation: MutationOperation = .create,
        of entityType: MutationEntityType = .event,
        entityId: String = Build.id(100),
        payload: Data? = Data("{}".utf8),
        at date: Date = instant
    ) -> PendingMutation {
        PendingMutation.new(
            entityType: entityType, operation: operation, entityId: entityId,
            payload: operation == .delete ? nil : payload, at: date)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? String(suffix(width)) : String(repeating: "0", count: width - count) + self
    }
}
