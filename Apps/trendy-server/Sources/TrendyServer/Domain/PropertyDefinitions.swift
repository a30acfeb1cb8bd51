import Foundation
import HTTPTypes
import Models

/// `/api/v1/event-types/{id}/properties` and `/api/v1/property-definitions/{id}` (api-v1 §5.4).
enum PropertyDefinitions {
    static let kinds = PropertyType.allCases.map(\.rawValue)

    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let typeId = try request.pathId("id", "event type")
        _ = try EventTypes.find(typeId, request, db, asServerError: true)
        return try .json(
            db.rows(
                sql: """
                    SELECT \(Rows.propertyDefinitionColumns) FROM property_definitions WHERE event_type_id = ?
                    ORDER BY display_order, created_at, id
                    """, arguments: [typeId], Rows.propertyDefinition))
    }

    static func get(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try .json(try find(try request.pathId("id", "property definition"), request, db))
    }

    static let rows = OwnedTable(
        "property_definitions", noun: "property definition", columns: Rows.propertyDefinitionColumns,
        decode: Rows.propertyDefinition)

    static func find(
        _ id: String, _ request: APIRequest, _ db: any StorageTransaction, asServerError: Bool = false
    ) throws -> APIPropertyDefinition {
        try rows.find(id, request, db, asServerError: asServerError)
    }

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let typeId = try request.pathId("id", "event type")
        _ = try EventTypes.find(typeId, request, db, asServerError: true)
        var body = try BodyReader.object(of: request)
        let id = body.uuid("id")
        if request.original && !body.uuid("event_type_id").isPresent {
            body.fail("event_type_id", "required", "event_type_id is required")
        }
        let key = body.requiredString("key")
        let label = body.requiredString("label")
        let kind = body.enumeration("property_type", allowed: kinds)
        let options = body.stringArray("options")
        let defaultValue = body.raw("default_value")
        let displayOrder = body.integer("display_order")
        if kind.value == nil && !body.errors.contains(where: { $0.field == "property_type" }) {
            body.fail("property_type", "required", "property_type is required")
        }
        let storedOptions = options.value.flatMap { $0.isEmpty ? nil : $0 }
        if kind.value == PropertyType.select.rawValue && storedOptions == nil {
            body.fail("options", "required", "options are required for a select property")
        }
        try body.finish()
        guard let key, let label, let kind = kind.value.flatMap(PropertyType.init(rawValue:)) else {
            throw APIError.validation(body.errors)
        }
        let requested = id.value ?? UUIDv7.generate(at: request.now.date)
        let candidate = APIPropertyDefinition(
            id: requested, userId: request.userId, eventTypeId: typeId, key: key, label: label, propertyType: kind,
            options: storedOptions ?? [], defaultValue: defaultValue.value, displayOrder: displayOrder.value ?? 0)

        if let stored = try db.row(
            sql: "SELECT \(Rows.propertyDefinitionColumns) FROM property_definitions WHERE id = ?",
            arguments: [requested], Rows.propertyDefinition)
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
                    code: "duplicate_id", field: "id", detail: "id: another property definition has this id",
                    existingId: stored.id), request)
        }
        if let holder = try db.value(
            String.self, sql: "SELECT id FROM property_definitions WHERE event_type_id = ? AND key = ?",
            arguments: [typeId, key])
        {
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_key", field: "key", detail: "key: this event type already has a property \(key)",
                    existingId: holder), request)
        }
        try write(candidate, createdAt: request.now, updatedAt: request.now, db)
        let created = try find(requested, request, db)
        try ChangeLog.append(
            db, user: request.userId, type: .propertyDefinition, operation: .create, entityId: requested,
            data: try ChangeLog.snapshot(created, type: .propertyDefinition, original: request.original),
            now: request.now)
        return try .json(created, status: request.original ? .ok : .created)
    }

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "property definition")
        var body = try BodyReader.object(of: request)
        let key = request.original ? body.string("key") : body.nonEmptyString("key")
        let label = request.original ? body.string("label") : body.nonEmptyString("label")
        let kind = body.enumeration("property_type", allowed: kinds)
        let options = body.stringArray("options")
        let defaultValue = body.raw("default_value")
        let displayOrder = body.integer("display_order")
        try body.finish()
        let stored = try find(id, request, db, asServerError: true)
        var updated = stored
        if let key = key.value, !key.isEmpty { updated.key = key }
        if let label = label.value, !label.isEmpty { updated.label = label }
        if let kind = kind.value.flatMap(PropertyType.init(rawValue:)) { updated.propertyType = kind }
        if request.original {
            // The original cannot clear options or the default, and resets display_order when it is not sent.
            if let options = options.value, !options.isEmpty { updated.options = options }
            if let value = defaultValue.value { updated.defaultValue = value }
            updated.displayOrder = displayOrder.value ?? 0
        } else {
            updated.options = options.mergedClearable(stored.options) ?? []
            updated.defaultValue = defaultValue.mergedClearable(stored.defaultValue)
            updated.displayOrder = displayOrder.merged(stored.displayOrder)
        }
        if updated.propertyType == .select && updated.options.isEmpty {
            body.fail("options", "required", "options are required for a select property")
            try body.finish()
        }
        guard updated != stored else { return try .json(stored) }
        if updated.key != stored.key,
            let holder = try db.value(
                String.self, sql: "SELECT id FROM property_definitions WHERE event_type_id = ? AND key = ? AND id != ?",
                arguments: [stored.eventTypeId, updated.key, id])
        {
            throw Quirk.conflict(
                .conflict(
                    code: "duplicate_key", field: "key",
                    detail: "key: this event type already has a property \(updated.key)", existingId: holder), request)
        }
        try write(updated, createdAt: nil, updatedAt: request.now, db)
        let saved = try find(id, request, db)
        try ChangeLog.append(
            db, user: request.userId, type: .propertyDefinition, operation: .update, entityId: id,
            data: try ChangeLog.snapshot(saved, type: .propertyDefinition, original: request.original),
            now: request.now)
        return try .json(saved)
    }

    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "property definition")
        _ = try find(id, request, db, asServerError: true)
        try db.execute(sql: "DELETE FROM property_definitions WHERE id = ?", arguments: [id])
        try ChangeLog.append(
            db, user: request.userId, type: .propertyDefinition, operation: .delete, entityId: id, data: nil,
            now: request.now)
        return .noContent
    }

    private static func write(
        _ definition: APIPropertyDefinition, createdAt: Int64?, updatedAt: Int64, _ db: any StorageTransaction
    )
        throws
    {
        try db.execute(
            sql: """
                INSERT INTO property_definitions (\(Rows.propertyDefinitionColumns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET key = excluded.key, label = excluded.label,
                    property_type = excluded.property_type, options = excluded.options,
                    default_value = excluded.default_value, display_order = excluded.display_order,
                    updated_at = excluded.updated_at
                """,
            arguments: [
                definition.id, definition.userId, definition.eventTypeId, definition.key, definition.label,
                definition.propertyType.rawValue,
                definition.options.isEmpty ? nil : JSONText.string(.array(definition.options.map(JSONValue.string))),
                definition.defaultValue.map(JSONText.string), definition.displayOrder, createdAt ?? updatedAt,
                updatedAt,
            ])
    }
}
