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
    /// cascade. A transport error, a 401 or a 429 ends the round and keeps the debt; any other failure keeps it too.
    /// Read-backs count as pulled; the breaker neither gates them nor counts them.
    func readBackOwed(_ counters: inout SyncCounts) async throws {
        let due = try unitOfWork { store in
            let queued = Set(try store.fetchPendingMutations().map(\.entityId))
            return try store.owedEntities().filter { !Self.waits($0, queued) }
        }
        guard !due.isEmpty else { return }
        var start = 0
        while start < due.count {
            if Task.isCancelled { throw RoundStop.cancelled }
            let chunk = Array(due[start..<min(start + Self.readBackConcurrency, due.count)])
            start += chunk.count
            let answers = await fetch(chunk)
            var stopError: (any Error)?
            var read: [(OwedEntity, APIEntity?)] = []
            for (owed, answer) in zip(chunk, answers) {
                switch answer {
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
            try write(read, &counters)
            if let stopError { throw stop(for: stopError) }
        }
        refreshCounts()
    }

    /// True while the entity, or the entity it waits for (a parent whose delete goes first), has a queued mutation.
    static func waits(_ owed: OwedEntity, _ queued: Set<String>) -> Bool {
        queued.contains(owed.id) || owed.after.map(queued.contains) == true
    }

    /// N7 for each owed entity of `chunk`, concurrently; the answers in the order of `chunk`.
    private func fetch(_ chunk: [OwedEntity]) async -> [Result<APIEntity?, any Error>] {
        await withTaskGroup(of: (Int, Result<APIEntity?, any Error>).self) { [network] group in
            for (index, owed) in chunk.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await network.fetchEntity(owed.entityType, id: owed.id)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var answers = [Result<APIEntity?, any Error>](repeating: .success(nil), count: chunk.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
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
            for (owed, answer) in read where current.contains(owed) && !Self.waits(owed, queued) {
                let id = owed.id.lowercased()
                if let answer {
                    try store.replace(id: id, with: answer)
                } else {
                    try removeLocally(owed.entityType, id: id, store)
                }
                try store.settleOwed(owed.entityType, id: owed.id, token: owed.token)
                counters.pulled += 1
            }
        }
    }
}
