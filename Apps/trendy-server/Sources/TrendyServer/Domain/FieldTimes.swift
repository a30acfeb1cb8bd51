import Foundation
import Models

/// When each field of an entity last changed, as a give-back compares them (api-v1 §15.1), kept through compaction
/// (api-v1 §6.8).
///
/// The times are read from the entity's change entries (`GiveBackFieldMerge`). Before compaction removes entries, it
/// folds them, in the order they were written, into the entity's checkpoint (`compacted_field_times`), which a
/// give-back resumes from. Without it, a field last changed in a removed entry would count at the kept entry's later
/// time, and an edit of it that a restore lost, given back by a device, would lose to the older value the backup held.
///
/// A checkpoint covers every entry of its entity up to `through`, removed or not; one is written in the transaction
/// that removes its entries, and only over an older one. Entries below the horizon are never written again, so one
/// computed in an earlier read still holds when it is written: whatever compacts meanwhile (another instance), every
/// removed entry lies within its entity's checkpoint.
enum FieldTimes {
    /// One entity's checkpoint: the merge of its change entries up to and including `through`.
    struct Checkpoint: Sendable {
        let key: EntityKey
        let through: Int64
        let state: String
    }

    /// One change entry compaction is about to remove.
    struct Removal: Sendable {
        let id: Int64
        let key: EntityKey
    }

    /// The merge of every change of the entity: its checkpoint, then the entries written after it.
    static func merge(
        user: String, type: MutationEntityType, entityId: String, _ db: any StorageTransaction
    ) throws -> GiveBackFieldMerge {
        let (merge, through) = try resume(user: user, type: type.rawValue, entityId: entityId, db)
        return try fold(merge, user: user, type: type.rawValue, entityId: entityId, after: through, upTo: .max, db)
    }

    /// For each entity of `removals`, a checkpoint through its largest id there, unless the stored one reaches it.
    static func checkpoints(
        before removals: [Removal], user: String, _ db: any StorageTransaction
    ) throws -> [Checkpoint] {
        var newest: [EntityKey: Int64] = [:]
        for removal in removals { newest[removal.key] = max(newest[removal.key] ?? .min, removal.id) }
        var checkpoints: [Checkpoint] = []
        for (key, last) in newest {
            let (merge, through) = try resume(user: user, type: key.type, entityId: key.id, db)
            guard through < last else { continue }
            let folded = try fold(merge, user: user, type: key.type, entityId: key.id, after: through, upTo: last, db)
            checkpoints.append(
                Checkpoint(key: key, through: last, state: JSONText.string(folded.checkpoint)))
        }
        return checkpoints
    }

    /// Writes each checkpoint over an older one of its entity; a newer one stays.
    static func store(_ checkpoints: [Checkpoint], user: String, _ db: any StorageTransaction) throws {
        for checkpoint in checkpoints {
            try db.execute(
                sql: """
                    INSERT INTO compacted_field_times (user_id, entity_type, entity_id, through_change_id, state)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, entity_type, entity_id) DO UPDATE SET
                        through_change_id = excluded.through_change_id, state = excluded.state
                    WHERE excluded.through_change_id > compacted_field_times.through_change_id
                    """,
                arguments: [user, checkpoint.key.type, checkpoint.key.id, checkpoint.through, checkpoint.state])
        }
    }

    /// The entity's checkpoint and the last change it covers; a fresh merge and 0 without one (or with one that does
    /// not parse: the entries still held are then all there is).
    private static func resume(
        user: String, type: String, entityId: String, _ db: any StorageTransaction
    ) throws -> (GiveBackFieldMerge, Int64) {
        var found: (GiveBackFieldMerge, Int64)?
        try db.forEachRow(
            """
            SELECT through_change_id, state FROM compacted_field_times
            WHERE user_id = ? AND entity_type = ? AND entity_id = ?
            """, [user, type, entityId]
        ) { row in
            let state = try? JSONText.parse(row.decode([UInt8].self, atIndex: 1))
            if let merge = state.flatMap(GiveBackFieldMerge.init(resuming:)) { found = (merge, row.int64(0)) }
            return false
        }
        return found ?? (GiveBackFieldMerge(), 0)
    }

    /// `merge` fed the entity's entries with ids in (`after`, `upTo`], in order: an entry a give-back wrote at the
    /// time it gave back (`given_back_changes`), its `pending` members at the entry's own time, any other entry at
    /// its snapshot's `updated_at`.
    private static func fold(
        _ merge: GiveBackFieldMerge, user: String, type: String, entityId: String, after: Int64, upTo: Int64,
        _ db: any StorageTransaction
    ) throws -> GiveBackFieldMerge {
        var merge = merge
        try db.forEachRow(
            """
            SELECT c.data, g.acknowledged_at, c.created_at, g.pending FROM changes c
            LEFT JOIN given_back_changes g ON g.change_id = c.id
            WHERE c.user_id = ? AND c.entity_id = ? AND c.entity_type = ? AND c.id > ? AND c.id <= ? ORDER BY c.id
            """, [user, entityId, type, after, upTo]
        ) { row in
            let snapshot = row.isNull(0) ? nil : try JSONText.parse(row.decode([UInt8].self, atIndex: 0)).objectValue
            let written = row.int64(2)
            guard !row.isNull(1) else {
                let time = snapshot?["updated_at"]?.stringValue.flatMap(RFC3339.milliseconds(from:)) ?? written
                merge.add(snapshot, at: time)
                return true
            }
            let pending =
                row.isNull(3)
                ? [] : try JSONText.parse(row.decode([UInt8].self, atIndex: 3)).arrayValue?.compactMap(\.stringValue)
            merge.add(snapshot, at: row.int64(1), pending: Set(pending ?? []), writtenAt: written)
            return true
        }
        return merge
    }

    /// Ids of different kinds never stand for one another, whatever ids clients chose.
    struct EntityKey: Hashable, Sendable {
        let type: String
        let id: String
    }
}
