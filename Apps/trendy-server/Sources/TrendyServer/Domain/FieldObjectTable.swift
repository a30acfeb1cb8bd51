import Foundation
import HTTPTypes
import Models

/// A server object as the one create and update of types, geofences and definitions store it.
protocol FieldObject: ServerObject {
    /// The columns beside `id`, `user_id` and the fields: a definition's `event_type_id`.
    var parentColumns: [(String, String)] { get }
}

extension APIEventType: FieldObject {
    var parentColumns: [(String, String)] { [] }
}

extension APIGeofence: FieldObject {
    var parentColumns: [(String, String)] { [] }
}

extension APIPropertyDefinition: FieldObject {
    var parentColumns: [(String, String)] { [("event_type_id", eventTypeId)] }
}

/// The field no two objects of one scope may share — an event type's or a geofence's `name` per user, a
/// definition's `key` per event type — and the 409 that says which object holds it.
struct Uniqueness<Object: FieldObject>: Sendable {
    let column: String
    let scopeColumn: String
    let code: String
    let value: @Sendable (Object) -> String
    let scope: @Sendable (Object) -> String
    /// "an event type named Tea already exists"
    let taken: @Sendable (String) -> String
}

/// A table of field objects: the caller's object or 404, a create (or the replay of an identical one), a PUT; each
/// write logged in the change feed in the same transaction.
struct FieldObjectTable<Object: FieldObject>: Sendable {
    let table: String
    let type: MutationEntityType
    let rows: OwnedTable<Object>
    let unique: Uniqueness<Object>
    private let columns: String

    init(
        _ table: String, type: MutationEntityType, noun: String, columns: String,
        decode: @escaping @Sendable (any StorageRow) throws -> Object, unique: Uniqueness<Object>
    ) {
        self.table = table
        self.type = type
        self.columns = columns
        self.unique = unique
        rows = OwnedTable(table, type: type, noun: noun, columns: columns, decode: decode)
    }

    /// The caller's object `id`, or 404 (a 500 with the original's message when `asServerError`).
    func find(
        _ id: String, _ request: APIRequest, _ db: any StorageTransaction, asServerError: Bool = false
    ) throws -> Object {
        try rows.find(id, request, db, asServerError: asServerError)
    }

    /// True when `id` is one of the user's objects.
    /// `OwnedTable.findForDelete`: nil when the id was remembered as deleted instead.
    func findForDelete(_ id: String, _ request: APIRequest, _ db: any StorageTransaction) throws -> Object? {
        try rows.findForDelete(id, request, db)
    }

    func exists(_ id: String, user: String, _ db: any StorageTransaction) throws -> Bool {
        try rows.exists(id, user: user, db)
    }

    /// `GET /api/v1/{collection}/{id}`.
    func get(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        try .json(try find(try request.pathId("id", rows.noun), request, db))
    }

    /// Stores `candidate` (api-v1 §3.4): an identical create of the caller's is answered with the stored object,
    /// another object with its id or its unique field is a 409.
    func create(_ candidate: Object, _ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        if let stored = try db.row(
            sql: "SELECT \(columns) FROM \(table) WHERE id = ?", arguments: [candidate.id], rows.decode)
        {
            guard stored.userId == request.userId else {
                throw request.dialect.conflict(
                    .conflict(code: "id_taken", field: "id", detail: "id: the id is taken", existingId: nil))
            }
            var comparable = stored
            (comparable.createdAt, comparable.updatedAt) = (nil, nil)
            if comparable == candidate { return try .json(stored) }
            throw request.dialect.conflict(
                .conflict(
                    code: "duplicate_id", field: "id", detail: "id: another \(rows.noun) has this id",
                    existingId: stored.id))
        }
        try checkUnique(candidate, request, db)
        try write(candidate, createdAt: request.now, request, db)
        let created = try find(candidate.id, request, db, asServerError: false)
        try log(created, .create, request, db)
        return try .json(created, status: request.dialect.createdStatus)
    }

    /// Applies `change` to the caller's object `id` and stores it when it changed anything.
    /// `PUT /api/v1/{collection}/{id}`: the body's field members merged into the stored fields. `read` sees the
    /// members first (a dialect's reading, reference checks); `check` sees the merged object before it is written.
    func put(
        _ request: APIRequest, _ db: any StorageTransaction,
        read: (inout FieldMembers<Object.Fields>, inout BodyReader) throws -> Void = { _, _ in },
        check: (Object, inout BodyReader) -> Void = { _, _ in }
    ) throws -> APIResponse {
        let id = try request.pathId("id", rows.noun)
        var body = try BodyReader.object(of: request)
        var members = FieldMembers<Object.Fields>(&body, creating: false, dialect: request.dialect)
        try read(&members, &body)
        try body.finish()
        return try update(id, request, db) { object in
            object.fields = members.merged(into: object.fields, dialect: request.dialect)
            check(object, &body)
            try body.finish()
        }
    }

    func update(
        _ id: String, _ request: APIRequest, _ db: any StorageTransaction, change: (inout Object) throws -> Void
    ) throws -> APIResponse {
        let stored = try find(id, request, db, asServerError: true)
        var updated = stored
        try change(&updated)
        guard updated != stored else { return try .json(stored) }
        if unique.value(updated) != unique.value(stored) { try checkUnique(updated, request, db) }
        try write(updated, createdAt: nil, request, db)
        let saved = try find(id, request, db, asServerError: false)
        try log(saved, .update, request, db)
        return try .json(saved)
    }

    private func checkUnique(_ object: Object, _ request: APIRequest, _ db: any StorageTransaction) throws {
        let value = unique.value(object)
        if let holder = try db.value(
            String.self,
            sql: "SELECT id FROM \(table) WHERE \(unique.scopeColumn) = ? AND \(unique.column) = ? AND id != ?",
            arguments: [unique.scope(object), value, object.id])
        {
            throw request.dialect.conflict(
                .conflict(
                    code: unique.code, field: unique.column, detail: "\(unique.column): \(unique.taken(value))",
                    existingId: holder))
        }
    }

    /// Inserts the row, or overwrites its fields and `updated_at`.
    private func write(
        _ object: Object, createdAt: Int64?, _ request: APIRequest, _ db: any StorageTransaction
    ) throws {
        let columns =
            ["id", "user_id"] + object.parentColumns.map(\.0) + Object.Fields.keys + ["created_at", "updated_at"]
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let arguments: [any SQLValueConvertible] =
            [object.id, object.userId] + object.parentColumns.map(\.1) + object.fields.columnValues + [
                createdAt ?? request.now, request.now,
            ]
        try db.execute(
            sql: """
                INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))
                ON CONFLICT(id) DO UPDATE SET \(Object.Fields.upsertAssignments), updated_at = excluded.updated_at
                """, arguments: arguments)
    }

    private func log(
        _ object: Object, _ operation: MutationOperation, _ request: APIRequest, _ db: any StorageTransaction
    ) throws {
        try ChangeLog.append(
            db, user: request.userId, type: type, operation: operation, entityId: object.id,
            data: try ChangeLog.snapshot(object, type: type, dialect: request.dialect), now: request.now)
    }
}
