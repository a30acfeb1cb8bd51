import Models

/// The ids each user deleted, with when (api-v1 §6.6). The change log forgets its rows past retention; this table
/// does not, so a GET of a deleted id can say `deleted` and when, where an id the server never had stays a plain
/// 404 — and a device can tell "another device deleted it" from "the server lost it".
///
/// A tombstone counts only while its id has no row: a create of a deleted id (a restore, api-v1 §7) leaves it, and
/// a later delete replaces it. Readers look here only after the row was not found.
enum Tombstones {
    /// Written with every delete row of the change log (`ChangeLog.append`), cascades included.
    static func record(
        _ db: any StorageTransaction, user: String, type: MutationEntityType, id: String, at milliseconds: Int64
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO tombstones (user_id, entity_id, entity_type, deleted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, entity_id) DO UPDATE SET
                    entity_type = excluded.entity_type, deleted_at = excluded.deleted_at
                """,
            arguments: [user, id, type.rawValue, milliseconds])
    }

    /// When `user` deleted the `type` of id `id`, if they did; nil for an id the server never had.
    static func deletedAt(
        _ db: any StorageTransaction, user: String, type: MutationEntityType, id: String
    ) throws -> Int64? {
        try db.value(
            Int64.self,
            sql: "SELECT deleted_at FROM tombstones WHERE user_id = ? AND entity_id = ? AND entity_type = ?",
            arguments: [user, id, type.rawValue])
    }
}
