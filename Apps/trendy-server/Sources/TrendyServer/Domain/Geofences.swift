import Foundation
import HTTPTypes
import Models

/// `/api/v1/geofences` (api-v1 §5.5).
enum Geofences {
    static let latitudeRange = -90.0...90.0
    static let longitudeRange = -180.0...180.0
    static let radiusRange = 50.0...10_000.0

    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let activeOnly = request.query["active"] == "true"
        guard !request.original else {
            return try .json(
                db.rows(
                    sql: """
                        SELECT \(Rows.geofenceColumns) FROM geofences WHERE user_id = ? AND (? OR is_active)
                        ORDER BY created_at DESC, id DESC
                        """, arguments: [request.userId, !activeOnly], Rows.geofence))
        }
        return try KeysetList.page(
            request, table: "geofences", columns: Rows.geofenceColumns, condition: " AND (? OR is_active)",
            conditionArguments: [!activeOnly], direction: .descending, position: { ($0.createdAt, $0.id) },
            decode: Rows.geofence, db)
    }

    static func get(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try .json(try find(try request.pathId("id", "geofence"), request, db))
    }

    static let rows = OwnedTable(
        "geofences", noun: "geofence", columns: Rows.geofenceColumns, decode: Rows.geofence)

    static func find(
        _ id: String, _ request: APIRequest, _ db: any StorageTransaction, asServerError: Bool = false
    ) throws -> APIGeofence {
        try rows.find(id, request, db, asServerError: asServerError)
    }

    static func exists(_ id: String, user: String, _ db: any StorageTransaction) throws -> Bool {
        try rows.exists(id, user: user, db)
    }

    /// Checks that entry/exit references name the caller's event types.
    private static func checkReferences(
        _ fields: [(String, String?)], _ body: inout BodyReader, _ request: APIRequest, _ db: any StorageTransaction
    ) throws {
        for (key, id) in fields {
            if let id, !(try EventTypes.exists(id, user: request.userId, db)) {
                body.fail(key, "unknown_reference", "\(key) names no event type of yours")
            }
        }
    }

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        var body = try BodyReader.object(of: request)
        let id = body.uuid("id")
        let name = body.requiredString("name")
        let latitude = body.number("latitude", in: latitudeRange)
        let longitude = body.number("longitude", in: longitudeRange)
        let radius = body.number("radius", in: radiusRange)
        let entry = body.uuid("event_type_entry_id")
        let exit = body.uuid("event_type_exit_id")
        let isActive = body.bool("is_active")
        let notifyOnEntry = body.bool("notify_on_entry")
        let notifyOnExit = body.bool("notify_on_exit")
        let region = body.string("ios_region_identifier")
        for (key, field) in [("latitude", latitude), ("longitude", longitude), ("radius", radius)] {
            if !field.isPresent || field.isNull, !body.errors.contains(where: { $0.field == key }) {
                body.fail(key, "required", "\(key) is required")
            }
            // The original rejects a coordinate of exactly 0 as missing.
            if request.original, field.value == 0, key != "radius" { body.fail(key, "required", "\(key) is required") }
        }
        if request.original && !id.isPresent { body.fail("id", "required", "id is required") }
        try checkReferences(
            [("event_type_entry_id", entry.value), ("event_type_exit_id", exit.value)], &body, request, db)
        try body.finish()
        guard let name, let latitude = latitude.value, let longitude = longitude.value, let radius = radius.value else {
            throw APIError.validation(body.errors)
        }
        let requested = id.value ?? UUIDv7.generate(at: request.now.date)
        let candidate = APIGeofence(
            id: requested, userId: request.userId, name: name, latitude: latitude, longitude: longitude, radius: radius,
            eventTypeEntryId: entry.value, eventTypeExitId: exit.value,
            isActive: isActive.value ?? !request.original, notifyOnEntry: notifyOnEntry.value ?? false,
            notifyOnExit: notifyOnExit.value ?? false, iosRegionIdentifier: request.original ? nil : region.value)

        if let stored = try db.row(
            sql: "SELECT \(Rows.geofenceColumns) FROM geofences WHERE id = ?", arguments: [requested], Rows.geofence)
        {
            guard stored.userId == request.userId else {
                throw Quirk.conflict(
                    .conflict(code: "id_taken", field: "id", detail: "id: the id is taken", existingId: nil), request)
            }
            var comparable = stored
            (comparable.createdAt, comparable.updatedAt) = (nil, nil)
            if comparable == candidate { return try .json(stored) }
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_id", field: "id", detail: "id: another geofence has this id", existingId: stored.id
                ),
                request)
        }
        if let holder = try db.value(
            String.self, sql: "SELECT id FROM geofences WHERE user_id = ? AND name = ?",
            arguments: [request.userId, name])
        {
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_name", field: "name", detail: "name: a geofence named \(name) already exists",
                    existingId: holder), request)
        }
        try write(candidate, createdAt: request.now, updatedAt: request.now, db)
        let created = try find(requested, request, db)
        try ChangeLog.append(
            db, user: request.userId, type: .geofence, operation: .create, entityId: requested,
            data: try ChangeLog.snapshot(created, type: .geofence, original: request.original), now: request.now)
        return try .json(created, status: request.original ? .ok : .created)
    }

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "geofence")
        var body = try BodyReader.object(of: request)
        let name = request.original ? body.string("name") : body.nonEmptyString("name")
        let latitude = body.number("latitude", in: latitudeRange)
        let longitude = body.number("longitude", in: longitudeRange)
        let radius = body.number("radius", in: radiusRange)
        let entry = body.uuid("event_type_entry_id")
        let exit = body.uuid("event_type_exit_id")
        let isActive = body.bool("is_active")
        let notifyOnEntry = body.bool("notify_on_entry")
        let notifyOnExit = body.bool("notify_on_exit")
        let region = body.string("ios_region_identifier")
        try checkReferences(
            [("event_type_entry_id", entry.value), ("event_type_exit_id", exit.value)], &body, request, db)
        try body.finish()
        let stored = try find(id, request, db, asServerError: true)
        var updated = stored
        if let name = name.value, !name.isEmpty { updated.name = name }
        // The original ignores a coordinate of exactly 0 on PUT.
        if let latitude = latitude.value, !(request.original && latitude == 0) { updated.latitude = latitude }
        if let longitude = longitude.value, !(request.original && longitude == 0) { updated.longitude = longitude }
        updated.radius = radius.merged(stored.radius)
        if request.original {
            updated.eventTypeEntryId = entry.value ?? stored.eventTypeEntryId
            updated.eventTypeExitId = exit.value ?? stored.eventTypeExitId
        } else {
            updated.eventTypeEntryId = entry.mergedClearable(stored.eventTypeEntryId)
            updated.eventTypeExitId = exit.mergedClearable(stored.eventTypeExitId)
        }
        updated.isActive = isActive.merged(stored.isActive)
        updated.notifyOnEntry = notifyOnEntry.merged(stored.notifyOnEntry)
        updated.notifyOnExit = notifyOnExit.merged(stored.notifyOnExit)
        updated.iosRegionIdentifier = region.value ?? stored.iosRegionIdentifier
        guard updated != stored else { return try .json(stored) }
        if updated.name != stored.name,
            let holder = try db.value(
                String.self, sql: "SELECT id FROM geofences WHERE user_id = ? AND name = ? AND id != ?",
                arguments: [request.userId, updated.name, id])
        {
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_name", field: "name",
                    detail: "name: a geofence named \(updated.name) already exists",
                    existingId: holder), request)
        }
        try write(updated, createdAt: nil, updatedAt: request.now, db)
        let saved = try find(id, request, db)
        try ChangeLog.append(
            db, user: request.userId, type: .geofence, operation: .update, entityId: id,
            data: try ChangeLog.snapshot(saved, type: .geofence, original: request.original), now: request.now)
        return try .json(saved)
    }

    /// Clears `geofence_id` on the fence's events (one `event` update row each on ours), then deletes it.
    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "geofence")
        _ = try find(id, request, db, asServerError: true)
        let events = try db.values(
            String.self, sql: "SELECT id FROM events WHERE geofence_id = ? ORDER BY id", arguments: [id])
        try db.execute(
            sql: "UPDATE events SET geofence_id = NULL, updated_at = ? WHERE geofence_id = ?",
            arguments: [request.now, id])
        if !request.original {
            for eventId in events {
                let event = try Events.find(eventId, request, db)
                try ChangeLog.append(
                    db, user: request.userId, type: .event, operation: .update, entityId: eventId,
                    data: try ChangeLog.snapshot(event, type: .event, original: false), now: request.now)
            }
        }
        try db.execute(sql: "DELETE FROM geofences WHERE id = ?", arguments: [id])
        try ChangeLog.append(
            db, user: request.userId, type: .geofence, operation: .delete, entityId: id, data: nil, now: request.now)
        return .noContent
    }

    private static func write(
        _ fence: APIGeofence, createdAt: Int64?, updatedAt: Int64, _ db: any StorageTransaction
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO geofences (\(Rows.geofenceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, latitude = excluded.latitude,
                    longitude = excluded.longitude, radius = excluded.radius,
                    event_type_entry_id = excluded.event_type_entry_id, event_type_exit_id = excluded.event_type_exit_id,
                    is_active = excluded.is_active, notify_on_entry = excluded.notify_on_entry,
                    notify_on_exit = excluded.notify_on_exit, ios_region_identifier = excluded.ios_region_identifier,
                    updated_at = excluded.updated_at
                """,
            arguments: [
                fence.id, fence.userId, fence.name, fence.latitude, fence.longitude, fence.radius,
                fence.eventTypeEntryId, fence.eventTypeExitId, fence.isActive, fence.notifyOnEntry, fence.notifyOnExit,
                fence.iosRegionIdentifier, createdAt ?? updatedAt, updatedAt,
            ])
    }
}

extension Field {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
