import Foundation
import HTTPTypes
import Models

/// `/api/v1/event-types` (api-v1 §5.2).
enum EventTypes {
    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        guard request.dialect.pagesByKeyset else {
            return try .json(
                db.rows(
                    sql: "SELECT \(Rows.eventTypeColumns) FROM event_types WHERE user_id = ? ORDER BY created_at, id",
                    arguments: [request.userId], Rows.eventType))
        }
        return try KeysetList.page(
            request, table: "event_types", columns: Rows.eventTypeColumns, direction: .ascending,
            position: { ($0.createdAt, $0.id) }, decode: Rows.eventType, db)
    }

    static let objects = FieldObjectTable(
        "event_types", type: .eventType, noun: "event type", columns: Rows.eventTypeColumns, decode: Rows.eventType,
        unique: Uniqueness(
            column: "name", scopeColumn: "user_id", code: "duplicate_name", value: \.name, scope: \.userId,
            taken: { "an event type named \($0) already exists" }))

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        var body = try BodyReader.object(of: request)
        let id = body.uuid("id")
        let fields = FieldMembers<EventTypeFields>(&body, creating: true, dialect: request.dialect).created
        try body.finish()
        let requested = id.value ?? UUIDv7.generate(at: request.now.date)
        return try objects.create(APIEventType(id: requested, userId: request.userId, fields: fields), request, db)
    }

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try objects.put(request, db)
    }

    /// Deletes the type with its children in one transaction. Ours logs every cascaded row first: cleared geofence
    /// references, deleted events, deleted definitions, then the type (`Dialect.logsCascades`).
    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "event type")
        guard try objects.findForDelete(id, request, db) != nil else { return objects.rows.missing(request) }
        let user = request.userId
        let logCascade = request.dialect.logsCascades
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
                let cleared = try Geofences.objects.find(fence.id, request, db)
                try ChangeLog.append(
                    db, user: user, type: .geofence, operation: .update, entityId: fence.id,
                    data: try ChangeLog.snapshot(cleared, type: .geofence, dialect: .ours), now: request.now)
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
        return .deleted(at: request.now)
    }
}
