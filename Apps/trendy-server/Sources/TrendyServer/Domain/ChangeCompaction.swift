import Foundation
import Models

/// Compaction of the change log (api-v1 §6.8): below a horizon, only the newest change of each entity is kept, a
/// delete included, so the log grows with the entities a user has, not with the edits ever made, and a device resumes
/// from any cursor with an incremental pull.
///
/// Online: the user's rows are read a page at a time, newest first, in read transactions, and the superseded rows are
/// deleted in short write transactions of `deleteBatch` rows, so a writer waits at most for one of them. Only a row
/// with a newer row of the same entity is deleted, and rows are never changed in place: whatever else runs meanwhile
/// (writes, another instance compacting, retention), every entity keeps its newest change. The changes in a known
/// device's feed range stay too, so that device's next pull finds the change its cursor names (api-v1 §6.8).
enum ChangeCompaction {
    typealias Report = ChangeLogCompaction

    /// Rows read per page while looking for superseded ones.
    static let readPage = 20_000
    /// Rows deleted per write transaction.
    static let deleteBatch = 500

    /// Compacts every user's log below the changes written before `cutoff` (milliseconds), keeping the changes in the
    /// feed range of every device seen since `devicesSeenSince` and not revoked (`Devices`, api-v1 §16).
    static func compact(
        writtenBefore cutoff: Int64, devicesSeenSince: Int64, _ storage: any ServerStorage
    ) async throws -> Report {
        let clock = ContinuousClock()
        let users = try await storage.read { db in
            try db.values(
                String.self, sql: "SELECT DISTINCT user_id FROM changes WHERE created_at < ?", arguments: [cutoff])
        }
        var report = Report()
        for user in users {
            let horizon = try await storage.read { db in
                try db.value(
                    Int64.self, sql: "SELECT MAX(id) FROM changes WHERE user_id = ? AND created_at < ?",
                    arguments: [user, cutoff])
            }
            guard let horizon else { continue }
            report.users += 1
            // Recorded first: from the moment a delete can happen, a position at or below it whose change is gone
            // is known to be one compaction removed (api-v1 §6.5, §6.7).
            try await storage.write(user: nil) { db in try recordHorizon(horizon, user: user, db) }
            let superseded = try await supersededChanges(of: user, atOrBelow: horizon, storage)
            // The last change each entity's stored checkpoint covers, as this run wrote them: a batch, newest first,
            // mostly meets entities an earlier one covered, which need no read.
            var covered: [FieldTimes.EntityKey: Int64] = [:]
            var start = 0
            while start < superseded.count {
                let batch = Array(superseded[start..<min(start + deleteBatch, superseded.count)])
                start += batch.count
                // What the entries tell a give-back, folded before they go (api-v1 §6.8, §15.1); read apart, so
                // that the write transaction stays short.
                let uncovered = batch.filter { (covered[$0.key] ?? .min) < $0.id }
                let checkpoints = try await storage.readLarge { db in
                    try FieldTimes.checkpoints(before: uncovered, user: user, db)
                }
                var removed = 0
                let took = try await clock.measure {
                    removed = try await storage.write(user: nil) { db in
                        try delete(batch, checkpoints, user: user, devicesSeenSince: devicesSeenSince, db)
                    }
                }
                for checkpoint in checkpoints { covered[checkpoint.key] = checkpoint.through }
                report.longestWriteMilliseconds = max(report.longestWriteMilliseconds, took.milliseconds)
                report.removed += removed
            }
        }
        return report
    }

    /// The changes at or below `horizon` with a newer change of the same entity, newest first.
    private static func supersededChanges(
        of user: String, atOrBelow horizon: Int64, _ storage: any ServerStorage
    ) async throws -> [FieldTimes.Removal] {
        var seen = Set<FieldTimes.EntityKey>()
        var superseded: [FieldTimes.Removal] = []
        var next = Int64.max
        while true {
            let below = next
            let page = try await storage.readLarge { db in
                try db.rows(
                    sql: """
                        SELECT id, entity_type, entity_id FROM changes WHERE user_id = ? AND id < ?
                        ORDER BY id DESC LIMIT ?
                        """, arguments: [user, below, readPage]
                ) { row in
                    FieldTimes.Removal(
                        id: row.int64(0),
                        key: FieldTimes.EntityKey(
                            type: try row.decode(String.self, atIndex: 1), id: try row.decode(String.self, atIndex: 2)))
                }
            }
            for change in page where !seen.insert(change.key).inserted && change.id <= horizon {
                superseded.append(change)
            }
            guard page.count == readPage, let last = page.last else { return superseded }
            next = last.id
        }
    }

    /// Deletes those of `removals` no known device's feed range holds, in the transaction that reads the ranges: a
    /// range a pull wrote before it is kept. The entities' field times stay in `checkpoints`, written in the same
    /// transaction. Returns how many it deleted.
    private static func delete(
        _ removals: [FieldTimes.Removal], _ checkpoints: [FieldTimes.Checkpoint], user: String,
        devicesSeenSince: Int64, _ db: any StorageTransaction
    ) throws -> Int {
        let ranges = try Devices.feedRanges(user: user, seenSince: devicesSeenSince, db)
        // Stored whatever is deleted: the run counts them as written (`covered`).
        try FieldTimes.store(checkpoints, user: user, db)
        let deleted = removals.map(\.id).filter { id in !ranges.contains { $0.contains(id) } }
        guard !deleted.isEmpty else { return 0 }
        let marks = Array(repeating: "?", count: deleted.count).joined(separator: ", ")
        let arguments = deleted.map { $0 as any SQLValueConvertible }
        try db.execute(sql: "DELETE FROM changes WHERE user_id = ? AND id IN (\(marks))", arguments: [user] + arguments)
        // The give-backs' times of the entries gone with them (api-v1 §15.1).
        try db.execute(sql: "DELETE FROM given_back_changes WHERE change_id IN (\(marks))", arguments: arguments)
        return deleted.count
    }

    private static func recordHorizon(_ horizon: Int64, user: String, _ db: any StorageTransaction) throws {
        try db.execute(
            sql: """
                INSERT INTO change_compactions (user_id, horizon) VALUES (?, ?)
                ON CONFLICT(user_id) DO UPDATE SET horizon = CASE
                    WHEN excluded.horizon > change_compactions.horizon THEN excluded.horizon
                    ELSE change_compactions.horizon END
                """, arguments: [user, horizon])
    }

    /// The largest change id at or below which the user's log was compacted; 0 when it never was.
    static func horizon(user: String, _ db: any StorageTransaction) throws -> Int64 {
        try db.value(Int64.self, sql: "SELECT horizon FROM change_compactions WHERE user_id = ?", arguments: [user])
            ?? 0
    }
}

/// What one compaction of the change log did (api-v1 §6.8).
public struct ChangeLogCompaction: Sendable, Equatable {
    /// Users whose log had changes below the horizon.
    public var users = 0
    /// Changes deleted: each superseded by a newer change of the same entity.
    public var removed = 0
    /// The longest write transaction, in milliseconds: how long a writer could have waited for compaction.
    public var longestWriteMilliseconds = 0.0
}

extension Duration {
    fileprivate var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
