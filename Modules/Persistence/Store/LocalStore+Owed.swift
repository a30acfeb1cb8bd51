import Foundation
import GRDB
import Models
import Protocols

// MARK: - DS12–DS14: owed read-backs (sync-engine R4)

extension LocalStore {
    public func markOwed(_ type: MutationEntityType, id: String, reason: OwedReason, after: String?) throws {
        try perform { db in
            // A debt that waits for nothing stays so: a cascade's debt marked over it must not let the parent's
            // delete settle what a discard or a replay still owes.
            var after = after
            if after != nil,
                let existing = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT after_id FROM owed_entities WHERE entity_type = ? AND entity_id = ?"),
                    arguments: [type.rawValue, id]),
                try existing.decode(String?.self, atIndex: 0) == nil
            {
                after = nil
            }
            // A version still to give back stays owed as such whatever else makes the entity owed (R15): its give-back
            // is followed by a read-back, which pays the other debt too.
            var reason = reason
            if reason != .giveBack,
                try String.fetchOne(
                    db.cachedStatement(sql: "SELECT reason FROM owed_entities WHERE entity_type = ? AND entity_id = ?"),
                    arguments: [type.rawValue, id]) == OwedReason.giveBack.rawValue
            {
                reason = .giveBack
            }
            // REPLACE deletes and inserts: the row gets a new `seq`, so a read-back of the old debt cannot settle it.
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO owed_entities (entity_type, entity_id, reason, after_id, marked_at)
                    VALUES (?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [type.rawValue, id, reason.rawValue, after, now.millisecondsSince1970])
        }
    }

    public func owedEntities() throws -> [OwedEntity] {
        try perform { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT entity_type, entity_id, seq, after_id, reason FROM owed_entities ORDER BY seq")
            )
            .compactMap { row in
                guard let type = MutationEntityType(rawValue: try row.decode(String.self, atIndex: 0)) else {
                    return nil
                }
                return OwedEntity(
                    entityType: type, id: try row.decode(String.self, atIndex: 1),
                    token: try row.decode(Int64.self, atIndex: 2), after: try row.decode(String?.self, atIndex: 3),
                    reason: OwedReason(rawValue: try row.decode(String.self, atIndex: 4)))
            }
        }
    }

    @discardableResult
    public func settleOwed(_ type: MutationEntityType, id: String, token: Int64?) throws -> Bool {
        try perform { db in
            if let token {
                try db.cachedStatement(
                    sql: "DELETE FROM owed_entities WHERE entity_type = ? AND entity_id = ? AND seq = ?"
                ).execute(arguments: [type.rawValue, id, token])
            } else {
                try db.cachedStatement(sql: "DELETE FROM owed_entities WHERE entity_type = ? AND entity_id = ?")
                    .execute(arguments: [type.rawValue, id])
            }
            return db.changesCount > 0
        }
    }
}

// MARK: - Unanswered event-create batches (sync-engine §4.7 step 2)

extension LocalStore {
    public func recordUnansweredBatch(_ batch: UnansweredBatch) throws {
        let members: Data
        do {
            members = try JSONCoding.encode(batch.members)
        } catch {
            throw DataStoreError.invalidData("an unanswered batch could not be encoded: \(error)")
        }
        try perform { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO unanswered_batches (key, members, sent_at) VALUES (?, ?, ?)",
                arguments: [batch.key, String(decoding: members, as: UTF8.self), batch.sentAt.millisecondsSince1970])
        }
    }

    public func unansweredBatches() throws -> [UnansweredBatch] {
        try perform { db in
            try Row.fetchAll(db, sql: "SELECT key, members, sent_at FROM unanswered_batches ORDER BY seq").map { row in
                let text = try row.decode(String.self, atIndex: 1)
                let members: [UnansweredBatch.Member]
                do {
                    members = try JSONCoding.decode([UnansweredBatch.Member].self, from: Data(text.utf8))
                } catch {
                    throw DataStoreError.invalidData("an unanswered batch does not decode: \(error)")
                }
                return UnansweredBatch(
                    key: try row.decode(String.self, atIndex: 0), members: members,
                    sentAt: try Column.date(row, 2))
            }
        }
    }

    public func removeUnansweredBatch(key: String) throws {
        try perform { db in try db.execute(sql: "DELETE FROM unanswered_batches WHERE key = ?", arguments: [key]) }
    }
}
