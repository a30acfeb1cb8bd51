import Foundation
import Models
import Protocols

/// The enqueue rules of sync-engine §1.7, as a pure function from the rows already queued for one entity to the
/// row changes that queue a new local change.
enum MutationCoalescer {
    /// The mutations queued for one entity, any state.
    struct Queued {
        var create: PendingMutation?
        var update: PendingMutation?
        var delete: PendingMutation?

        init(_ rows: [PendingMutation]) {
            for row in rows {
                switch row.operation {
                case .create: create = row
                case .update: update = row
                case .delete: delete = row
                }
            }
        }
    }

    enum Change: Equatable {
        case insert(PendingMutation)
        case rewrite(PendingMutation)
        case remove(PendingMutation)
    }

    struct Plan {
        var result: EnqueueResult
        var changes: [Change]
    }

    static func plan(
        queued: Queued,
        entityType: MutationEntityType,
        operation: MutationOperation,
        entityId: String,
        payload: Data?,
        at now: Date
    ) throws -> Plan {
        if operation != .delete && payload == nil {
            throw DataStoreError.invalidData("a \(operation.rawValue) of \(entityType.rawValue) needs a payload")
        }
        let newRow = {
            PendingMutation.new(
                entityType: entityType, operation: operation, entityId: entityId,
                payload: operation == .delete ? nil : payload, at: now)
        }
        if queued.delete != nil {
            guard operation == .delete else { throw DataStoreError.entityDeleted(entityType, entityId: entityId) }
            return Plan(result: .noOp, changes: [])
        }
        let unsentCreate = queued.create.flatMap { $0.isSent ? nil : $0 }
        switch operation {
        case .create:
            if let create = unsentCreate {
                return Plan(result: .replaced, changes: [.rewrite(changed(create, payload: payload, at: now))])
            }
            guard queued.create == nil, queued.update == nil else {
                throw DataStoreError.invalidSequence(entityType, entityId: entityId, operation: operation)
            }
            return Plan(result: .inserted, changes: [.insert(newRow())])

        case .update:
            if let create = unsentCreate, let createPayload = create.payload, let payload {
                let folded = try MutationPayload.fold(create: createPayload, update: payload, of: entityType)
                var rewritten = changed(create, payload: folded, at: now, revive: true)
                rewritten.foldedEdits =
                    try create.foldedEdits.map { try MutationPayload.merge($0, payload, of: entityType) }
                    ?? payload
                var changes: [Change] = [.rewrite(rewritten)]
                if let update = queued.update { changes.append(.remove(update)) }
                return Plan(result: .folded, changes: changes)
            }
            if let update = queued.update {
                // R2: the patches merge key by key, the newer value winning; a dead letter is revived whole.
                var merged = payload
                if let older = update.payload, let newer = payload {
                    merged = try MutationPayload.merge(older, newer, of: entityType)
                }
                return Plan(
                    result: .replaced, changes: [.rewrite(changed(update, payload: merged, at: now, revive: true))])
            }
            return Plan(result: .inserted, changes: [.insert(newRow())])

        case .delete:
            let removals = [queued.update, queued.create].compactMap { $0.map(Change.remove) }
            if unsentCreate != nil {
                return Plan(result: .cancelled, changes: removals)
            }
            return Plan(result: .inserted, changes: removals + [.insert(newRow())])
        }
    }

    /// A row whose payload changed: new key, `revision + 1`, `updated_at`; a dead letter may be revived.
    static func changed(_ row: PendingMutation, payload: Data?, at now: Date, revive: Bool = false) -> PendingMutation {
        var row = row
        row.payload = payload
        row.clientRequestId = UUIDv7.generate(at: now)
        row.revision += 1
        row.updatedAt = now.roundedToMilliseconds
        if revive && row.state == .failed {
            row.state = .pending
            row.attempts = 0
            row.lastError = nil
        }
        return row
    }
}
