import Foundation
import GRDB
import Models
import Protocols

extension LocalStore {
    // MARK: Seed methods

    public func insertPendingMutation(_ mutation: PendingMutation) throws {
        do {
            try perform { db in try Self.insert(mutation, in: db) }
        } catch DataStoreError.storage(let message) where message.localizedCaseInsensitiveContains("UNIQUE") {
            throw DataStoreError.duplicateMutation(
                mutation.entityType, entityId: mutation.entityId, operation: mutation.operation)
        }
    }

    // MARK: DS1 enqueue

    public func enqueueMutation(
        entityType: MutationEntityType, operation: MutationOperation, entityId: String, payload: Data?, at: Date
    ) throws -> EnqueueResult {
        try perform { db in
            let queued = MutationCoalescer.Queued(try Self.mutations(of: entityType, entityId: entityId, in: db))
            let plan = try MutationCoalescer.plan(
                queued: queued, entityType: entityType, operation: operation, entityId: entityId, payload: payload,
                at: at)
            for change in plan.changes {
                switch change {
                case .insert(let row): try Self.insert(row, in: db)
                case .rewrite(let row): try Self.rewrite(row, in: db)
                case .remove(let row): try Self.remove(id: row.id, in: db)
                }
            }
            return plan.result
        }
    }

    // MARK: DS2–DS5: claim, complete, fail, revive

    public func claimMutations(ids: [String], at: Date) throws -> [PendingMutation] {
        try perform { db in
            var claimed: [PendingMutation] = []
            for id in ids {
                guard var row = try Self.mutation(id: id, in: db), row.isLive else { continue }
                let claimedRow = row.claimed(at: at)
                if claimedRow != row {
                    row = claimedRow
                    try Self.rewrite(row, in: db)
                }
                claimed.append(row)
            }
            return claimed
        }
    }

    @discardableResult
    public func completeMutation(id: String, revision: Int?) throws -> Bool {
        try perform { db in
            guard let revision else {
                try Self.remove(id: id, in: db)
                return db.changesCount > 0
            }
            try db.execute(
                sql: "DELETE FROM pending_mutations WHERE id = ? AND revision = ?", arguments: [id, revision])
            return db.changesCount > 0
        }
    }

    public func recordMutationFailure(
        id: String, revision: Int, message: String, at: Date, maxAttempts: Int, deadLetterNow: Bool
    ) throws -> FailureResult {
        try perform { db in
            guard var row = try Self.mutation(id: id, in: db), row.revision == revision else { return .skipped }
            row.attempts += 1
            row.lastError = message
            row.lastAttemptAt = at.roundedToMilliseconds
            row.updatedAt = at.roundedToMilliseconds
            let deadLetter = deadLetterNow || row.attempts >= maxAttempts
            if deadLetter {
                row.state = .failed
                try Self.setSyncStatus(.failed, of: row.entityType, id: row.entityId, in: db)
            }
            try Self.rewrite(row, in: db)
            return deadLetter ? .deadLettered(attempts: row.attempts) : .counted(attempts: row.attempts)
        }
    }

    /// DS5 with R8: a revived update's keys take the entity's current values (the payload is kept as it is when the
    /// row is gone). A
    /// revived create is rebuilt from the row, absorbing an update of the entity, when the server cannot hold it:
    /// it was never sent, or its parent was removed (`"parent deleted"`), or the server refused it as a conflict.
    /// Otherwise an earlier send may have stored it, so it keeps its payload under a new key and the update stays
    /// queued behind it, to be applied after it.
    public func reviveMutation(id: String, at: Date) throws -> Bool {
        try perform { db in
            guard let dead = try Self.mutation(id: id, in: db), dead.isDeadLetter else { return false }
            var row = MutationCoalescer.changed(dead, payload: dead.payload, at: at, revive: true)
            switch row.operation {
            case .create:
                let lastError = dead.lastError ?? ""
                let refused =
                    !dead.isSent || lastError == PendingMutation.parentDeletedError || lastError.hasPrefix("conflict:")
                if refused, let rebuilt = try self.payload(.create, of: row.entityType, id: row.entityId, in: db) {
                    row.payload = rebuilt
                    let siblings = try Self.mutations(of: row.entityType, entityId: row.entityId, in: db)
                    for update in siblings where update.operation == .update {
                        try Self.remove(id: update.id, in: db)
                    }
                }
                try Self.setSyncStatus(.pending, of: row.entityType, id: row.entityId, in: db)
            case .update:
                if let patch = dead.payload,
                    let full = try self.payload(.update, of: row.entityType, id: row.entityId, in: db)
                {
                    row.payload = try MutationPayload.rebuilding(patch, from: full, of: row.entityType)
                }
            case .delete:
                break
            }
            try Self.rewrite(row, in: db)
            return true
        }
    }

    public func rewriteMutation(_ mutation: PendingMutation) throws {
        try perform { db in try Self.rewrite(mutation, in: db) }
    }

    // MARK: Row helpers (inside a transaction)

    static func mutation(id: String, in db: Database) throws -> PendingMutation? {
        try Row.fetchOne(db.cachedStatement(sql: "\(MutationRow.select) WHERE id = ?"), arguments: [id])
            .map(MutationRow.decode)
    }

    static func mutations(
        of entityType: MutationEntityType, entityId: String, in db: Database
    ) throws
        -> [PendingMutation]
    {
        try Row.fetchAll(
            db.cachedStatement(sql: "\(MutationRow.select) WHERE entity_type = ? AND entity_id = ?"),
            arguments: [entityType.rawValue, entityId]
        ).map(MutationRow.decode)
    }

    static func insert(_ mutation: PendingMutation, in db: Database) throws {
        try db.cachedStatement(sql: MutationRow.insertSQL).execute(
            arguments: StatementArguments(MutationRow.values(mutation)))
    }

    static func rewrite(_ mutation: PendingMutation, in db: Database) throws {
        try db.cachedStatement(sql: MutationRow.updateSQL).execute(
            arguments: StatementArguments(MutationRow.updateValues(mutation)))
    }

    static func remove(id: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM pending_mutations WHERE id = ?").execute(arguments: [id])
    }

    /// The body of a create or an update made from the entity's current row, or nil when the row is gone.
    func payload(
        _ operation: MutationOperation, of type: MutationEntityType, id: String, in db: Database
    ) throws -> Data? {
        func body(_ entity: some OutboxEntity) throws -> Data {
            operation == .create ? try MutationPayload.create(entity) : try MutationPayload.update(entity)
        }
        return switch type {
        case .event: try find(Event.self, id: id, in: db).map { try body($0) }
        case .eventType: try find(EventType.self, id: id, in: db).map { try body($0) }
        case .geofence: try find(Geofence.self, id: id, in: db).map { try body($0) }
        case .propertyDefinition: try find(PropertyDefinition.self, id: id, in: db).map { try body($0) }
        }
    }
}
