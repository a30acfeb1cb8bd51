import Foundation
import HTTPTypes
import Models

/// `/api/v1/geofences` (api-v1 §5.5).
enum Geofences {
    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let activeOnly = request.query["active"] == "true"
        guard request.dialect.pagesByKeyset else {
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

    static let objects = FieldObjectTable(
        "geofences", type: .geofence, noun: "geofence", columns: Rows.geofenceColumns, decode: Rows.geofence,
        unique: Uniqueness(
            column: "name", scopeColumn: "user_id", code: "duplicate_name", value: \.name, scope: \.userId,
            taken: { "a geofence named \($0) already exists" }))

    /// Checks that the entry/exit references name the caller's event types.
    private static func checkReferences(
        _ members: FieldMembers<GeofenceFields>, _ body: inout BodyReader, _ request: APIRequest,
        _ db: any StorageTransaction
    ) throws {
        for field in GeofenceFields.fields where field.kind == .id {
            if case .value(.text(let id)) = members[field.key],
                !(try EventTypes.objects.exists(id, user: request.userId, db))
            {
                body.fail(field.key, "unknown_reference", "\(field.key) names no event type of yours")
            }
        }
    }

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        var body = try BodyReader.object(of: request)
        let id = body.uuid("id")
        var members = FieldMembers<GeofenceFields>(&body, creating: true, dialect: request.dialect)
        request.dialect.readGeofenceCreate(&members, &body, idGiven: id.isPresent)
        try checkReferences(members, &body, request, db)
        try body.finish()
        let requested = id.value ?? UUIDv7.generate(at: request.now.date)
        return try objects.create(
            APIGeofence(id: requested, userId: request.userId, fields: members.created), request, db)
    }

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try objects.put(request, db) { members, body in
            request.dialect.readGeofenceUpdate(&members)
            try checkReferences(members, &body, request, db)
        }
    }

    /// Clears `geofence_id` on the fence's events (one `event` update row each on ours), then deletes it.
    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "geofence")
        guard try objects.findForDelete(id, request, db) != nil else { return objects.rows.missing(request) }
        let events = try db.values(
            String.self, sql: "SELECT id FROM events WHERE geofence_id = ? ORDER BY id", arguments: [id])
        try db.execute(
            sql: "UPDATE events SET geofence_id = NULL, updated_at = ? WHERE geofence_id = ?",
            arguments: [request.now, id])
        if request.dialect.logsCascades {
            for eventId in events {
                let event = try Events.find(eventId, request, db)
                try ChangeLog.append(
                    db, user: request.userId, type: .event, operation: .update, entityId: eventId,
                    data: try ChangeLog.snapshot(event, type: .event, dialect: .ours), now: request.now)
            }
        }
        try db.execute(sql: "DELETE FROM geofences WHERE id = ?", arguments: [id])
        try ChangeLog.append(
            db, user: request.userId, type: .geofence, operation: .delete, entityId: id, data: nil, now: request.now)
        return .deleted(at: request.now)
    }
}
