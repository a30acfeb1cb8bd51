import Models

/// api-v1 §7, "Re-sends of creates": a create sent again after its first answer was lost says when it was queued
/// (`Trendy-Queued-At`). A server that takes it as a new write — a copy put back by hand never saw the first send —
/// remembers its change entries at that time, as it remembers a given-back create at its item's time
/// (`given_back_changes`, api-v1 §15.1): the incarnation begins then, and its fields count from then. So a delete or an
/// edit another device made of what the first send created, given back later, still ends or changes it.
enum ResentCreates {
    /// Dates the create entries the request appended after `before` (an identical re-send or a HealthKit match
    /// appends none; a replay never runs the handler).
    static func date(
        user: String, after before: Int64, queuedAt: Int64, now: Int64, _ db: any StorageTransaction
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO given_back_changes (change_id, acknowledged_at, pending)
                SELECT id, ?, NULL FROM changes WHERE user_id = ? AND id > ? AND operation = 'create'
                """, arguments: [ResentCreate.dated(queuedAt: queuedAt, now: now), user, before])
    }
}
