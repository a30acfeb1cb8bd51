import Foundation
import GRDB
import Models
import Protocols

/// `pending_mutations` rows (sync-engine §1.5).
enum MutationRow {
    static let columns = [
        "seq", "id", "entity_type", "operation", "entity_id", "payload", "client_request_id", "state", "attempts",
        "last_error", "last_attempt_at", "first_sent_at", "revision", "created_at", "updated_at", "sent_key",
        "sent_payload", "folded_edits",
    ]
    static let columnList = columns.joined(separator: ", ")
    static let select = "SELECT \(columnList) FROM pending_mutations"
    static let queueOrder = "ORDER BY created_at, seq"

    static func decode(_ row: Row) throws -> PendingMutation {
        let entityTypeText = try row.decode(String.self, atIndex: 2)
        let operationText = try row.decode(String.self, atIndex: 3)
        guard let entityType = MutationEntityType(rawValue: entityTypeText),
            let operation = MutationOperation(rawValue: operationText)
        else { throw DataStoreError.invalidData("unknown mutation kind \(entityTypeText)/\(operationText)") }
        return PendingMutation(
            seq: try row.decode(Int64.self, atIndex: 0),
            id: try row.decode(String.self, atIndex: 1),
            entityType: entityType,
            operation: operation,
            entityId: try row.decode(String.self, atIndex: 4),
            payload: try row.decode(Data?.self, atIndex: 5),
            clientRequestId: try row.decode(String.self, atIndex: 6),
            state: MutationState(rawValue: try row.decode(String.self, atIndex: 7)) ?? .pending,
            attempts: try row.decode(Int.self, atIndex: 8),
            lastError: try row.decode(String?.self, atIndex: 9),
            lastAttemptAt: try Column.optionalDate(row, 10),
            firstSentAt: try Column.optionalDate(row, 11),
            revision: try row.decode(Int.self, atIndex: 12),
            createdAt: try Column.date(row, 13),
            updatedAt: try Column.date(row, 14),
            sentKey: try row.decode(String?.self, atIndex: 15),
            sentPayload: try row.decode(Data?.self, atIndex: 16),
            foldedEdits: try row.decode(Data?.self, atIndex: 17)
        )
    }

    /// Values for every column but `seq` (nil when the row has none yet, so SQLite assigns the next one).
    static func values(_ mutation: PendingMutation) -> [(any DatabaseValueConvertible)?] {
        [
            mutation.seq == 0 ? nil : mutation.seq, mutation.id, mutation.entityType.rawValue,
            mutation.operation.rawValue, mutation.entityId, mutation.payload, mutation.clientRequestId,
            mutation.state.rawValue, mutation.attempts, mutation.lastError, Column.milliseconds(mutation.lastAttemptAt),
            Column.milliseconds(mutation.firstSentAt), mutation.revision, Column.milliseconds(mutation.createdAt),
            Column.milliseconds(mutation.updatedAt), mutation.sentKey, mutation.sentPayload, mutation.foldedEdits,
        ]
    }

    static let insertSQL =
        "INSERT INTO pending_mutations (\(columnList)) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"

    /// Rewrites every mutable column of an existing row (identified by `id`).
    static let updateSQL = """
        UPDATE pending_mutations SET payload = ?, client_request_id = ?, state = ?, attempts = ?, last_error = ?,
            last_attempt_at = ?, first_sent_at = ?, revision = ?, updated_at = ?, sent_key = ?, sent_payload = ?,
            folded_edits = ?
        WHERE id = ?
        """

    static func updateValues(_ mutation: PendingMutation) -> [(any DatabaseValueConvertible)?] {
        [
            mutation.payload, mutation.clientRequestId, mutation.state.rawValue, mutation.attempts,
            mutation.lastError, Column.milliseconds(mutation.lastAttemptAt), Column.milliseconds(mutation.firstSentAt),
            mutation.revision, Column.milliseconds(mutation.updatedAt), mutation.sentKey, mutation.sentPayload,
            mutation.foldedEdits, mutation.id,
        ]
    }
}

/// `sync_engine_state` and `sync_history` rows (sync-engine §1.9, §1.10).
enum EngineRows {
    static func decodeState(_ row: Row) throws -> EngineState {
        EngineState(
            cursor: try row.decode(Int64.self, atIndex: 0),
            cursorCreatedAt: try Column.optionalDate(row, 14),
            bootstrapRequested: try Column.bool(row, 1),
            pendingDeleteIds: try Column.stringSet(row, 2),
            breakerConsecutive429: try row.decode(Int.self, atIndex: 3),
            breakerBackoffUntil: try Column.optionalDate(row, 4),
            breakerMultiplier: try row.decode(Double.self, atIndex: 5),
            breakerRetryAfterHint: try row.decode(Double?.self, atIndex: 6),
            quietUntil: try Column.optionalDate(row, 7),
            lastSuccessAt: try Column.optionalDate(row, 8),
            serverRoot: try row.decode(String?.self, atIndex: 9),
            accountUserId: try row.decode(String?.self, atIndex: 10),
            unfetchedDefinitionTypes: try Column.stringSet(row, 11),
            geofencesRefreshedAt: try Column.optionalDate(row, 12),
            serverFeatures: ServerFeatures(try Column.stringSet(row, 13)),
            serverHistoryId: try row.decode(String?.self, atIndex: 15),
            cancelledCreateIds: try Column.stringSet(row, 16),
            headCheckStart: try row.decode(Int64?.self, atIndex: 17).map {
                FeedPosition(cursor: $0, createdAt: try Column.optionalDate(row, 18))
            }
        )
    }

    static let stateColumnNames = [
        "cursor", "bootstrap_requested", "pending_delete_ids", "breaker_consecutive_429", "breaker_backoff_until",
        "breaker_multiplier", "breaker_retry_after_hint", "quiet_until", "last_success_at", "server_root",
        "account_user_id", "unfetched_definition_types", "geofences_refreshed_at", "server_features",
        "cursor_created_at", "server_history_id", "cancelled_create_ids", "head_check_cursor",
        "head_check_created_at",
    ]
    static let loadStateSQL = "SELECT \(stateColumnNames.joined(separator: ", ")) FROM sync_engine_state WHERE id = 1"
    static let saveStateSQL =
        "INSERT INTO sync_engine_state (id, \(stateColumnNames.joined(separator: ", "))) VALUES (1, "
        + Array(repeating: "?", count: stateColumnNames.count).joined(separator: ", ")
        + ") ON CONFLICT(id) DO UPDATE SET "
        + stateColumnNames.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    static func stateValues(_ state: EngineState) -> [(any DatabaseValueConvertible)?] {
        [
            state.cursor, state.bootstrapRequested, Column.json(state.pendingDeleteIds.sorted()),
            state.breakerConsecutive429, Column.milliseconds(state.breakerBackoffUntil), state.breakerMultiplier,
            state.breakerRetryAfterHint, Column.milliseconds(state.quietUntil),
            Column.milliseconds(state.lastSuccessAt),
            state.serverRoot, state.accountUserId, Column.json(state.unfetchedDefinitionTypes.sorted()),
            Column.milliseconds(state.geofencesRefreshedAt), Column.json(state.serverFeatures.names.sorted()),
            Column.milliseconds(state.cursorCreatedAt), state.serverHistoryId,
            Column.json(state.cancelledCreateIds.sorted()), state.headCheckStart?.cursor,
            Column.milliseconds(state.headCheckStart?.createdAt),
        ]
    }

    private static let historyColumnNames =
        ["id", "started_at", "finished_at", "duration_ms", "kind", "status", "outcome", "message"]
        + SyncCounts.fields.map(\.key)
    static let historyColumns = historyColumnNames.joined(separator: ", ")
    static let historyInsert =
        "INSERT INTO sync_history (\(historyColumns)) VALUES (\(Array(repeating: "?", count: historyColumnNames.count).joined(separator: ", ")))"

    static func decodeHistory(_ row: Row) throws -> SyncHistoryEntry {
        SyncHistoryEntry(
            id: try row.decode(String.self, atIndex: 0),
            startedAt: try Column.date(row, 1),
            finishedAt: try Column.date(row, 2),
            durationMs: try row.decode(Int.self, atIndex: 3),
            kind: SyncHistoryEntry.Kind(rawValue: try row.decode(String.self, atIndex: 4)) ?? .incremental,
            status: SyncHistoryEntry.Status(rawValue: try row.decode(String.self, atIndex: 5)) ?? .failed,
            outcome: try row.decode(String.self, atIndex: 6),
            message: try row.decode(String?.self, atIndex: 7),
            counts: try decodeCounts(row, from: 8)
        )
    }

    /// The counters, in `SyncCounts.fields` order from column `first` on.
    private static func decodeCounts(_ row: Row, from first: Int) throws -> SyncCounts {
        var counts = SyncCounts()
        for (offset, field) in SyncCounts.fields.enumerated() {
            counts[keyPath: field.path] = try row.decode(Int.self, atIndex: first + offset)
        }
        return counts
    }

    static func historyValues(_ entry: SyncHistoryEntry) -> [(any DatabaseValueConvertible)?] {
        [
            entry.id, Column.milliseconds(entry.startedAt), Column.milliseconds(entry.finishedAt), entry.durationMs,
            entry.kind.rawValue, entry.status.rawValue, entry.outcome, entry.message,
        ] + SyncCounts.fields.map { entry.counts[keyPath: $0.path] }
    }
}
