import Models

/// A table of rows each owned by one user, read as API objects: one place for "the caller's row with this id, or
/// 404" and "is this id one of the caller's", whatever the entity.
struct OwnedTable<Entity>: Sendable {
    /// For errors: "event type not found".
    let noun: String
    /// The kind of its rows, for their tombstones.
    let type: MutationEntityType
    let decode: @Sendable (any StorageRow) throws -> Entity
    private let findSQL: String
    private let existsSQL: String
    private let heldByAnyoneSQL: String

    init(
        _ table: String, type: MutationEntityType, noun: String, columns: String,
        decode: @escaping @Sendable (any StorageRow) throws -> Entity
    ) {
        self.noun = noun
        self.type = type
        self.decode = decode
        findSQL = "SELECT \(columns) FROM \(table) WHERE id = ? AND user_id = ?"
        existsSQL = "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ? AND user_id = ?)"
        heldByAnyoneSQL = "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ?)"
    }

    /// The caller's row `id` for a DELETE. An id that no user holds and the caller never deleted is remembered as
    /// deleted now, and nil comes back: the server may have lost the entity to a restore, and a device that gives it
    /// back later must find it deleted (api-v1 §6.6, §15.1). The handler then answers the usual 404 once the
    /// transaction commits (`APIResponse.missing`). Every other miss throws as `find` does.
    func findForDelete(_ id: String, _ request: APIRequest, _ db: any StorageTransaction) throws -> Entity? {
        if let entity = try db.row(sql: findSQL, arguments: [id, request.userId], decode) { return entity }
        guard request.dialect.tellsDeletedFromUnknown,
            try Tombstones.deletedAt(db, user: request.userId, type: type, id: id) == nil,
            try db.value(Bool.self, sql: heldByAnyoneSQL, arguments: [id]) == false
        else { return try find(id, request, db, asServerError: true) }
        try Tombstones.record(db, user: request.userId, type: type, id: id, at: request.now)
        return nil
    }

    /// The 404 of an id the caller does not hold, answered after a commit (`findForDelete`), with `deleted_at` the
    /// time the delete is remembered at: the device records it as its acknowledged delete (sync-engine R15), which
    /// it gives back if a restore loses the tombstone.
    func missing(_ request: APIRequest) -> APIResponse {
        var error = request.dialect.notFound(noun, asServerError: true)
        if request.dialect.tellsDeletedFromUnknown { error.deletedAt = request.now }
        return APIResponse.failing(error)
    }

    /// The caller's row `id`; a 404 when there is none (a 500 with `--quirks original` where `asServerError`),
    /// which says `deleted` and when for an id the caller deleted (api-v1 §6.6).
    func find(_ id: String, _ request: APIRequest, _ db: any StorageTransaction, asServerError: Bool) throws -> Entity {
        guard let entity = try db.row(sql: findSQL, arguments: [id, request.userId], decode) else {
            if request.dialect.tellsDeletedFromUnknown,
                let deletedAt = try Tombstones.deletedAt(db, user: request.userId, type: type, id: id)
            {
                throw APIError.deleted(noun, at: deletedAt)
            }
            throw request.dialect.notFound(noun, asServerError: asServerError)
        }
        return entity
    }

    /// True when `id` is one of `user`'s rows.
    func exists(_ id: String, user: String, _ db: any StorageTransaction) throws -> Bool {
        try db.value(Bool.self, sql: existsSQL, arguments: [id, user]) ?? false
    }
}
