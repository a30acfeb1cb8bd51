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

    init(
        _ table: String, type: MutationEntityType, noun: String, columns: String,
        decode: @escaping @Sendable (any StorageRow) throws -> Entity
    ) {
        self.noun = noun
        self.type = type
        self.decode = decode
        findSQL = "SELECT \(columns) FROM \(table) WHERE id = ? AND user_id = ?"
        existsSQL = "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ? AND user_id = ?)"
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
