import Foundation
import HTTPTypes
import Models

/// Appends change-feed rows inside the writing transaction (api-v1 §6.2).
enum ChangeLog {
    static func append(
        _ db: any StorageTransaction, user: String, type: MutationEntityType, operation: MutationOperation,
        entityId: String, data: JSONValue?, now: Int64
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO changes (user_id, entity_type, operation, entity_id, data, deleted_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                user, type.rawValue, operation.rawValue, entityId, data.map(JSONText.string),
                operation == .delete ? now : nil, now,
            ])
        if operation == .delete { try Tombstones.record(db, user: user, type: type, id: entityId, at: now) }
    }

    /// The user's latest change id (0 when none): read before a write, it tells the entries the write appended.
    static func latestChange(user: String, _ db: any StorageTransaction) throws -> Int64 {
        try db.value(Int64.self, sql: "SELECT MAX(id) FROM changes WHERE user_id = ?", arguments: [user]) ?? 0
    }

    /// The snapshot `data` of a create or update row (api-v1 §6.3); `Dialect.snapshotsCarryNulls`.
    static func snapshot<Value: Encodable>(
        _ value: Value, type: MutationEntityType, dialect: Dialect
    ) throws -> JSONValue {
        try ChangeSnapshot.data(value, of: type, explicitNulls: dialect.snapshotsCarryNulls)
    }
}
