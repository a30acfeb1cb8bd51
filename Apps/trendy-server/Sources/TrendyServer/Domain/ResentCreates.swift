import Models

/// api-v1 §7, "Re-sends of creates": a create sent again after its first answer was lost says how long it was
/// queued (`Trendy-Queued-For`), which the pipeline turns into a time of this server's clock (`APIRequest.queuedAt`).
/// A server that takes it as a new write — a copy put back by hand never saw the first send — records the entity as
/// created then: the row's, the change entry's and the answer's `created_at`. Its incarnation then begins when the
/// first send's did (api-v1 §15.1), so a delete another device made of what the first send created, given back
/// later, still ends it. Its version stays the one the server acknowledges now, and its fields count from it. A
/// delete the server remembers already, made at or after that time, ended that incarnation too: the entity is
/// created and deleted again, so the two end the same in either order.
enum ResentCreates {
    /// Dates the entities whose create entries the request appended after `before` (an identical re-send or a
    /// HealthKit match appends none; a replay never runs the handler), and returns the answer with their `created_at`.
    static func date(
        _ answer: APIResponse, _ request: APIRequest, queuedAt dated: Int64, after before: Int64,
        _ db: any StorageTransaction
    ) throws -> APIResponse {
        let user = request.userId
        let time = JSONValue.string(RFC3339.string(fromMilliseconds: dated))
        let created = try db.rows(
            sql: """
                SELECT id, entity_type, entity_id, data FROM changes
                WHERE user_id = ? AND id > ? AND operation = 'create' ORDER BY id
                """, arguments: [user, before]
        ) { row in
            (
                change: row.int64(0), type: try row.decode(String.self, atIndex: 1),
                id: try row.decode(String.self, atIndex: 2),
                data: row.isNull(3) ? nil : try row.decode([UInt8].self, atIndex: 3)
            )
        }
        guard !created.isEmpty else { return answer }
        for entry in created {
            guard let type = MutationEntityType(rawValue: entry.type) else { continue }
            try db.execute(
                sql: "UPDATE \(type.table) SET created_at = ? WHERE id = ?",
                arguments: [dated, entry.id])
            if let data = entry.data, case .object(var snapshot) = try JSONText.parse(data) {
                snapshot["created_at"] = time
                try db.execute(
                    sql: "UPDATE changes SET data = ? WHERE id = ?",
                    arguments: [JSONText.string(.object(snapshot)), entry.change])
            }
        }
        for entry in created {
            guard let type = MutationEntityType(rawValue: entry.type),
                let deletedAt = try Tombstones.deletedAt(db, user: user, type: type, id: entry.id),
                GiveBackItem.deleteEnds(incarnationBegan: dated, deletedAt: deletedAt),
                try db.value(Int64.self, sql: "SELECT 1 FROM \(type.table) WHERE id = ?", arguments: [entry.id]) != nil
            else { continue }
            // Through the entity's own delete (its cascade, its change entry), as the device's DELETE would run.
            let delete = APIRequest(
                userId: user, now: request.now, body: [], query: [:], parameters: ["id": entry.id],
                dialect: request.dialect)
            _ = try type.delete(delete, db)
        }
        var answer = answer
        let ids = Set(created.map(\.id))
        answer.body = Array(JSONText.string(redated(try JSONText.parse(answer.body), ids: ids, to: time)).utf8)
        return answer
    }

    /// A create's answer (the object) or a batch's (`created`), each object of a dated id carrying `time`.
    private static func redated(_ value: JSONValue, ids: Set<String>, to time: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        if case .array(let created)? = members["created"] {
            members["created"] = .array(created.map { redated($0, ids: ids, to: time) })
        } else if let id = members["id"]?.stringValue, ids.contains(id.lowercased()) {
            members["created_at"] = time
        }
        return .object(members)
    }
}
