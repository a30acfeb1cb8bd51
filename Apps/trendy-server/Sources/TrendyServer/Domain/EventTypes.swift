import Foundation
import HTTPTypes
import Models

/// `/api/v1/event-types` (api-v1 §5.2).
enum EventTypes {
    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        guard !request.original else {
            return try .json(
                db.rows(
                    sql: "SELECT \(Rows.eventTypeColumns) FROM event_types WHERE user_id = ? ORDER BY created_at, id",
                    arguments: [request.userId], Rows.eventType))
        }
        return try KeysetList.page(
            request, table: "event_types", columns: Rows.eventTypeColumns, direction: .ascending,
            position: { ($0.createdAt, $0.id) }, decode: Rows.eventType, db)
    }

    static func get(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try .json(try find(try request.pathId("id", "event type"), request, db))
    }

    static let rows = OwnedTable(
        "event_types", noun: "event type", columns: Rows.eventTypeColumns, decode: Rows.eventType)

    static func find(
        _ id: String, _ request: APIRequest, _ db: any StorageTransaction, asServerError: Bool = false
    ) throws -> APIEventType {
        try rows.find(id, request, db, asServerError: asServerError)
    }

    /// True when `id` is one of the caller's types.
    static func exists(_ id: String, user: String, _ db: any StorageTransaction) throws -> Bool {
        try rows.exists(id, user: user, db)
    }

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        var body = try BodyReader.object(of: request)
        let id = body.uuid("id")
        let name = body.requiredString("name")
        let color = body.requiredString("color")
        let icon = body.requiredString("icon")
        try body.finish()
        guard let name, let color, let icon else { throw APIError.validation(body.errors) }
        let requested = id.value ?? UUIDv7.generate(at: request.now.date)

        if let stored = try db.row(
            sql: "SELECT \(Rows.eventTypeColumns) FROM event_types WHERE id = ?", arguments: [requested], Rows.eventType
        ) {
            guard stored.userId == request.userId else {
                throw Quirk.conflict(
                    .conflict(code: "id_taken", field: "id", detail: "id: the id is taken", existingId: nil), request)
            }
            if stored.name == name && stored.color == color && stored.icon == icon {
                return try .json(stored)
            }
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_id", field: "id", detail: "id: another event type has this id",
                    existingId: stored.id),
                request)
        }
        if let holder = try db.value(
            String.self, sql: "SELECT id FROM event_types WHERE user_id = ? AND name = ?",
            arguments: [request.userId, name])
        {
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_name", field: "name", detail: "name: an event type named \(name) already exists",
                    existingId: holder), request)
        }
        try db.execute(
            sql: """
                INSERT INTO event_types (id, user_id, name, color, icon, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [requested, request.userId, name, color, icon, request.now, request.now])
        let created = try find(requested, request, db)
        try ChangeLog.append(
            db, user: request.userId, type: .eventType, operation: .create, entityId: requested,
            data: try ChangeLog.snapshot(created, type: .eventType, original: request.original), now: request.now)
        return try .json(created, status: request.original ? .ok : .created)
    }

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "event type")
        var body = try BodyReader.object(of: request)
        let name = request.original ? body.string("name") : body.nonEmptyString("name")
        let color = request.original ? body.string("color") : body.nonEmptyString("color")
        let icon = request.original ? body.string("icon") : body.nonEmptyString("icon")
        try body.finish()
        let stored = try find(id, request, db, asServerError: true)
        // The original treats "" as unchanged for required strings.
        func merged(_ field: Field<String>, _ current: String) -> String {
            guard let value = field.value, !value.isEmpty else { return current }
            return value
        }
        var updated = stored
        updated.name = merged(name, stored.name)
        updated.color = merged(color, stored.color)
        updated.icon = merged(icon, stored.icon)
        guard updated != stored else { return try .json(stored) }
        if updated.name != stored.name,
            let holder = try db.value(
                String.self, sql: "SELECT id FROM event_types WHERE user_id = ? AND name = ? AND id != ?",
                arguments: [request.userId, updated.name, id])
        {
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_name", field: "name",
                    detail: "name: an event type named \(updated.name) already exists", existingId: holder), request)
        }
        try db.execute(
            sql: "UPDATE event_types SET name = ?, color = ?, icon = ?, updated_at = ? WHERE id = ?",
            arguments: [updated.name, updated.color, updated.icon, request.now, id])
        let saved = try find(id, request, db)
        try ChangeLog.append(
            db, user: request.userId, type: .eventType, operation: .update, entityId: id,
            data: try ChangeLog.snapshot(saved, type: .eventType, original: request.original), now: request.now)
        return try .json(saved)
    }

    /// Deletes the type with its children in one transaction. Ours logs every cascaded row first: cleared geofence
    /// references, deleted events, deleted definitions, then the type; the original logs only the type.
    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "event type")
        _ = try find(id, request, db, asServerError: true)
        let user = request.userId
        let logCascade = !request.original
        let fences = try db.rows(
            sql: """
                SELECT \(Rows.geofenceColumns) FROM geofences
                WHERE user_id = ? AND (event_type_entry_id = ? OR event_type_exit_id = ?) ORDER BY id
                """, arguments: [user, id, id], Rows.geofence)
        for fence in fences {
            try db.execute(
                sql: """
                    UPDATE geofences SET
                        event_type_entry_id = CASE WHEN event_type_entry_id = ?1 THEN NULL ELSE event_type_entry_id END,
                        event_type_exit_id = CASE WHEN event_type_exit_id = ?1 THEN NULL ELSE event_type_exit_id END,
                        updated_at = ?2
                    WHERE id = ?3
                    """, arguments: [id, request.now, fence.id])
            if logCascade {
                let cleared = try Geofences.find(fence.id, request, db)
                try ChangeLog.append(
                    db, user: user, type: .geofence, operation: .update, entityId: fence.id,
                    data: try ChangeLog.snapshot(cleared, type: .geofence, original: false), now: request.now)
            }
        }
        for (table, type) in [("events", MutationEntityType.event), ("property_definitions", .propertyDefinition)] {
            let children = try db.values(
                String.self, sql: "SELECT id FROM \(table) WHERE event_type_id = ? ORDER BY id", arguments: [id])
            try db.execute(sql: "DELETE FROM \(table) WHERE event_type_id = ?", arguments: [id])
            if logCascade {
                for child in children {
                    try ChangeLog.append(
                        db, user: user, type: type, operation: .delete, entityId: child, data: nil, now: request.now)
                }
            }
        }
        try db.execute(sql: "DELETE FROM event_types WHERE id = ?", arguments: [id])
        try ChangeLog.append(
            db, user: user, type: .eventType, operation: .delete, entityId: id, data: nil, now: request.now)
        return .noContent
    }
}
