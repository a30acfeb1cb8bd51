import Foundation
import HTTPTypes
import Models

/// `/api/v1/event-types/{id}/properties` and `/api/v1/property-definitions/{id}` (api-v1 §5.4).
enum PropertyDefinitions {
    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let typeId = try request.pathId("id", "event type")
        _ = try EventTypes.objects.find(typeId, request, db, asServerError: true)
        return try .json(
            db.rows(
                sql: """
                    SELECT \(Rows.propertyDefinitionColumns) FROM property_definitions WHERE event_type_id = ?
                    ORDER BY display_order, created_at, id
                    """, arguments: [typeId], Rows.propertyDefinition))
    }

    static let objects = FieldObjectTable(
        "property_definitions", type: .propertyDefinition, noun: "property definition",
        columns: Rows.propertyDefinitionColumns, decode: Rows.propertyDefinition,
        unique: Uniqueness(
            column: "key", scopeColumn: "event_type_id", code: "duplicate_key", value: \.key, scope: \.eventTypeId,
            taken: { "this event type already has a property \($0)" }))

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let typeId = try request.pathId("id", "event type")
        _ = try EventTypes.objects.find(typeId, request, db, asServerError: true)
        var body = try BodyReader.object(of: request)
        let id = body.uuid("id")
        request.dialect.readDefinitionCreate(&body)
        let fields = FieldMembers<PropertyDefinitionFields>(&body, creating: true, dialect: request.dialect).created
        checkOptions(fields, &body)
        try body.finish()
        let requested = id.value ?? UUIDv7.generate(at: request.now.date)
        return try objects.create(
            APIPropertyDefinition(id: requested, userId: request.userId, eventTypeId: typeId, fields: fields), request,
            db)
    }

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try objects.put(request, db) { members, _ in
            request.dialect.readDefinitionUpdate(&members)
        } check: { definition, body in
            checkOptions(definition.fields, &body)
        }
    }

    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "property definition")
        guard try objects.findForDelete(id, request, db) != nil else { return objects.rows.missing(request) }
        try db.execute(sql: "DELETE FROM property_definitions WHERE id = ?", arguments: [id])
        try ChangeLog.append(
            db, user: request.userId, type: .propertyDefinition, operation: .delete, entityId: id, data: nil,
            now: request.now)
        return .deleted(at: request.now)
    }

    /// A select property needs its options.
    private static func checkOptions(_ fields: PropertyDefinitionFields, _ body: inout BodyReader) {
        if fields.propertyType == .select && fields.options.isEmpty {
            body.fail("options", "required", "options are required for a select property")
        }
    }
}
