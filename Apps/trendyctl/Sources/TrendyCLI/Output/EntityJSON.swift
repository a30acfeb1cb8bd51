import Foundation
import Models

/// The `--json` shapes of spec/trendyctl.md §1.4: API field names, unset optionals omitted, RFC 3339 UTC times with
/// milliseconds, plus `sync_status`. Export files use the same shapes.
enum EntityJSON {
    static func time(_ date: Date) -> JSONValue { .string(RFC3339.string(from: date)) }

    private static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for case (let key, let value?) in members { object[key] = value }
        return .object(object)
    }

    static func eventType(_ type: EventType) -> JSONValue {
        object([
            ("id", .string(type.id)), ("name", .string(type.name)), ("color", .string(type.color)),
            ("icon", .string(type.icon)), ("created_at", time(type.createdAt)),
            ("sync_status", .string(type.syncStatus.rawValue)),
        ])
    }

    static func event(_ event: Event) -> JSONValue {
        object([
            ("id", .string(event.id)), ("event_type_id", .string(event.eventTypeId)),
            ("timestamp", time(event.timestamp)),
            ("notes", event.notes.map(JSONValue.string)), ("is_all_day", .bool(event.isAllDay)),
            ("end_date", event.endDate.map(time)), ("source_type", .string(event.sourceType.rawValue)),
            ("external_id", event.externalId.map(JSONValue.string)),
            ("original_title", event.originalTitle.map(JSONValue.string)),
            ("geofence_id", event.geofenceId.map(JSONValue.string)),
            ("location_latitude", event.locationLatitude.map(JSONValue.number)),
            ("location_longitude", event.locationLongitude.map(JSONValue.number)),
            ("location_name", event.locationName.map(JSONValue.string)),
            ("healthkit_sample_id", event.healthKitSampleId.map(JSONValue.string)),
            ("healthkit_category", event.healthKitCategory.map(JSONValue.string)),
            ("properties", event.properties.isEmpty ? nil : .object(event.properties.mapValues(\.json))),
            ("sync_status", .string(event.syncStatus.rawValue)),
        ])
    }

    static func geofence(_ fence: Geofence) -> JSONValue {
        object([
            ("id", .string(fence.id)), ("name", .string(fence.name)), ("latitude", .number(fence.latitude)),
            ("longitude", .number(fence.longitude)), ("radius", .number(fence.radius)),
            ("event_type_entry_id", fence.eventTypeEntryId.map(JSONValue.string)),
            ("event_type_exit_id", fence.eventTypeExitId.map(JSONValue.string)),
            ("is_active", .bool(fence.isActive)), ("notify_on_entry", .bool(fence.notifyOnEntry)),
            ("notify_on_exit", .bool(fence.notifyOnExit)),
            ("ios_region_identifier", fence.iosRegionIdentifier.map(JSONValue.string)),
            ("created_at", time(fence.createdAt)), ("sync_status", .string(fence.syncStatus.rawValue)),
        ])
    }

    static func propertyDefinition(_ definition: PropertyDefinition) -> JSONValue {
        object([
            ("id", .string(definition.id)), ("event_type_id", .string(definition.eventTypeId)),
            ("key", .string(definition.key)), ("label", .string(definition.label)),
            ("property_type", .string(definition.propertyType.rawValue)),
            ("options", definition.options.isEmpty ? nil : .array(definition.options.map(JSONValue.string))),
            ("default_value", definition.defaultValue.flatMap { $0 == .null ? nil : $0 }),
            ("display_order", .number(Double(definition.displayOrder))), ("created_at", time(definition.createdAt)),
            ("updated_at", time(definition.updatedAt)), ("sync_status", .string(definition.syncStatus.rawValue)),
        ])
    }

    static func mutation(_ mutation: PendingMutation) -> JSONValue {
        object([
            ("id", .string(mutation.id)), ("entity_type", .string(mutation.entityType.rawValue)),
            ("entity_id", .string(mutation.entityId)), ("operation", .string(mutation.operation.rawValue)),
            ("state", .string(mutation.state.rawValue)), ("attempts", .number(Double(mutation.attempts))),
            ("last_error", mutation.lastError.map(JSONValue.string) ?? .null), ("created_at", time(mutation.createdAt)),
        ])
    }

    static func history(_ entry: SyncHistoryEntry) -> JSONValue {
        object([
            ("id", .string(entry.id)), ("started_at", time(entry.startedAt)),
            ("duration_ms", .number(Double(entry.durationMs))), ("outcome", .string(entry.outcome)),
            ("pushed", .number(Double(entry.pushed))), ("pulled", .number(Double(entry.pulled))),
            ("message", entry.message.map(JSONValue.string) ?? .null),
        ])
    }

    static func deleted(_ ids: [String]) -> JSONValue { ["deleted": .array(ids.map(JSONValue.string))] }
}
