import Foundation
import Logging
import Models
import Protocols

extension SyncEngine {
    /// How many read-backs are in flight at once (R14).
    static let readBackConcurrency = 8

    /// R4: reads back every owed entity that has nothing queued, at most `readBackConcurrency` at once, and writes
    /// each answer in a unit of work that checks again that the debt is the one read and that nothing was queued for
    /// the entity meanwhile. 200 writes the entity whole; 404 (or a "not found" 5xx) deletes it locally with the local
    /// cascade, except where R15 gives it back first (`givingBackLost`). A transport error, a 401 or a 429 ends the
    /// round and keeps the debt; any other failure keeps it too. Read-backs count as pulled; the breaker neither
    /// gates them nor counts them.
    func readBackOwed(_ counters: inout SyncCounts) async throws {
        let due = try unitOfWork { store in
            let queued = Set(try store.fetchPendingMutations().map(\.entityId))
            // A version owed back is read back once it went (`payGiveBackDebts`), never before.
            return try store.owedEntities().filter { !Self.waits($0, queued) && $0.reason != .giveBack }
        }
        guard !due.isEmpty else { return }
        let lost = try await readBack(due, keepingLost: true, &counters)
        guard !lost.isEmpty else { return }
        try await givingBackLost(lost, &counters)
    }

    /// R4, R15: a 404 for an entity this device holds acknowledged, and not deleted, is either another device's
    /// delete or a loss of the server's (a restore, or a file copied back by hand, whose history still holds this
    /// device's position, so that nothing else told). The device gives the version back, and the server's newer-only
    /// rule (api-v1 §15.1) tells the two apart: a version the server took, or holds newer, is read back whole; one it
    /// refused is kept as a dead letter (`keepRefused`); where it holds a later delete, or did not answer for the
    /// entity (a server without give-back), the entity goes locally as the 404 said.
    private func givingBackLost(_ lost: [OwedEntity], _ counters: inout SyncCounts) async throws {
        let outcomes = try await giveBack(
            since: nil, readingBack: false, differing: lost.map { ($0.entityType, $0.id.lowercased(), false) },
            unacknowledged: false, remembersHistory: false, &counters)
        let taken: Set<GiveBackOutcome> = [.applied, .kept]
        let again = lost.filter { outcomes[$0.id.lowercased()].map(taken.contains) == true }
        let gone = lost.filter { outcomes[$0.id.lowercased()].map(taken.contains) != true }
        try write(gone.map { ($0, nil) }, &counters)
        _ = try await readBack(again, keepingLost: false, &counters)
    }

    /// Reads back `due`, chunk by chunk. With `keepingLost`, an entity answered 404 that this device holds
    /// acknowledged and not deleted is neither written nor settled, and is returned, for `givingBackLost`.
    private func readBack(
        _ due: [OwedEntity], keepingLost: Bool, _ counters: inout SyncCounts
    ) async throws -> [OwedEntity] {
        let givesBack = try keepingLost && readEngineState().serverFeatures.has(ServerFeatures.digest)
        var lost: [OwedEntity] = []
        var start = 0
        while start < due.count {
            if Task.isCancelled { throw RoundStop.cancelled }
            let chunk = Array(due[start..<min(start + Self.readBackConcurrency, due.count)])
            start += chunk.count
            var stopError: (any Error)?
            var read: [(OwedEntity, APIEntity?)] = []
            for answer in await fetch(chunk) {
                let owed = answer.owed
                switch answer.result {
                case .success(let entity?) where !Self.answers(owed, with: entity):
                    // N7 asked for this entity: an answer naming another is never written over it (R4).
                    logger.error(
                        "a read-back answered for another entity; the entity stays owed",
                        metadata: [
                            "entity": "\(owed.entityType.rawValue) \(owed.id)",
                            "answer": "\(entity.entityType.rawValue) \(entity.id)",
                        ])
                case .success(let entity): read.append((owed, entity))
                case .failure(let error):
                    switch PushErrorClass.classify(error, operation: .create) {
                    case .cancelled, .transport, .auth, .rateLimited:
                        if stopError == nil { stopError = error }
                    default:
                        logger.warning(
                            "a read-back failed; the entity stays owed",
                            metadata: ["entity": "\(owed.entityType.rawValue) \(owed.id)", "error": "\(error)"])
                    }
                }
            }
            if givesBack, network.serverHistory != nil {
                let missing = read.filter { $0.1 == nil }.map(\.0)
                let held = try unitOfWork { store in
                    Set(
                        try store.acknowledgedVersions(ids: Set(missing.map { $0.id.lowercased() }))
                            .filter { !$0.deleted }.map(\.id))
                }
                let kept = missing.filter { held.contains($0.id.lowercased()) }
                lost += kept
                read.removeAll { answer in answer.1 == nil && kept.contains(answer.0) }
            }
            try write(read, &counters)
            if let stopError { throw stop(for: stopError) }
        }
        refreshCounts()
        return lost
    }

    /// True when `entity` is the one `owed` names: the same kind and id (ids compare without case, sync-engine §1.1).
    static func answers(_ owed: OwedEntity, with entity: APIEntity) -> Bool {
        entity.entityType == owed.entityType && entity.id.lowercased() == owed.id.lowercased()
    }

    /// True while the entity, or the entity it waits for (a parent whose delete goes first), has a queued mutation.
    static func waits(_ owed: OwedEntity, _ queued: Set<String>) -> Bool {
        queued.contains(owed.id) || owed.after.map(queued.contains) == true
    }

    /// What one read-back's GET answered, with the entity it was asked for.
    ///
    /// The answer carries its entity itself, and a task group's child returns this struct rather than a tuple: Swift
    /// 6.3.1 at `-O` hands back a wrong index from a child result of type `(Int, Result<APIEntity?, any Error>)`,
    /// and the answers landed on other entities' rows (docs/reliability.md, "Optimizer defects and their shapes").
    struct ReadBackAnswer: Sendable {
        /// The entity's place in its chunk: answers are written in the chunk's order, as the store lists debts.
        let slot: Int
        let owed: OwedEntity
        let result: Result<APIEntity?, any Error>
    }

    /// N7 for each owed entity of `chunk`, concurrently; one answer per entity, in the order of `chunk`.
    private func fetch(_ chunk: [OwedEntity]) async -> [ReadBackAnswer] {
        await withTaskGroup(of: ReadBackAnswer.self) { [network] group in
            for (slot, owed) in chunk.enumerated() {
                group.addTask {
                    let result: Result<APIEntity?, any Error>
                    do {
                        result = .success(try await network.fetchEntity(owed.entityType, id: owed.id))
                    } catch {
                        result = .failure(error)
                    }
                    return ReadBackAnswer(slot: slot, owed: owed, result: result)
                }
            }
            var answers: [ReadBackAnswer] = []
            answers.reserveCapacity(chunk.count)
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.slot < $1.slot }
        }
    }

    /// Writes the answers of one chunk in one unit of work. An answer is dropped, its entity staying owed, when the
    /// debt changed while its GET was in flight (settled by an applied entry, or incurred again) or when a mutation of
    /// the entity was queued meanwhile.
    private func write(_ read: [(OwedEntity, APIEntity?)], _ counters: inout SyncCounts) throws {
        guard !read.isEmpty else { return }
        try bindAccount(read.compactMap { $0.1?.userId })
        try unitOfWork { store in
            let current = Set(try store.owedEntities())
            let queued = Set(try store.fetchPendingMutations().map(\.entityId))
            var engineState = try store.loadEngineState()
            let cancelled = engineState.cancelledCreateIds
            for (owed, answer) in read where current.contains(owed) && !Self.waits(owed, queued) {
                let id = owed.id.lowercased()
                if cancelled.contains(id) {
                    try answerCancelledCreates([(owed.entityType, id, answer == nil)], &engineState, store)
                } else if let answer {
                    try store.replace(id: id, with: answer)
                    if let version = answer.acknowledgedVersion { try store.recordAcknowledged([version]) }
                } else {
                    try removeLocally(owed.entityType, id: id, store)
                }
                try store.settleOwed(owed.entityType, id: owed.id, token: owed.token)
                counters.pulled += 1
            }
            if engineState.cancelledCreateIds != cancelled {
                try store.saveEngineState(engineState)
                observedEngineState = engineState
            }
        }
    }
}
