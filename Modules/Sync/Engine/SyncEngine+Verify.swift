import Foundation
import Logging
import Models
import Protocols

/// What blocks a verification: an entity with a queued mutation, a dead letter or a debt (sync-engine R10).
public struct VerifyBlocker: Equatable, Sendable {
    /// Why the entity blocks; the raw value is what `trendyctl sync --verify --json` prints.
    public enum Reason: String, Sendable {
        /// A live mutation waits to be sent.
        case queued
        /// A dead letter waits for `queue retry` or `queue discard`.
        case deadLetter = "dead_letter"
        /// A read-back is owed (R4).
        case owed
    }

    /// The entity's kind.
    public var entityType: MutationEntityType
    /// The entity's id.
    public var id: String
    /// What holds it.
    public var reason: Reason

    /// A blocker of the entity.
    public init(entityType: MutationEntityType, id: String, reason: Reason) {
        self.entityType = entityType
        self.id = id
        self.reason = reason
    }
}

/// The result of `verify()`: the round it ran first, and what the comparison with the server's digest found.
public struct VerifyReport: Equatable, Sendable {
    /// What the comparison found.
    public enum Result: Equatable, Sendable {
        /// The local digest equals the server's at the same cursor; `repaired` rows were read back to get there.
        case verified(repaired: Int)
        /// Still different after the repair: the entities (`type id`) that differ.
        case diverged(differing: [String], repaired: Int)
        /// No digest at the stored cursor in `digestsPerVerify` reads: the account is being written to.
        case busy
        /// The server has no digest (no `digest` feature).
        case unsupported
        /// Queued work, dead letters or debts: verifying now would report them as differences.
        case blocked([VerifyBlocker])
        /// The round did not end `synced` or `partial` (offline, rate limited, …): nothing was compared.
        case notCompared
    }

    /// The verification's rounds, with the counts of every run it made (its give-backs among them).
    public var sync: SyncReport
    /// What the comparison found.
    public var result: Result

    /// True when the device equals the server.
    public var verified: Bool {
        if case .verified = result { return true }
        return false
    }

    /// Rows a read-back changed.
    public var repaired: Int {
        switch result {
        case .verified(let repaired), .diverged(_, let repaired): repaired
        default: 0
        }
    }

    /// trendyctl's exit code (trendyctl.md §1.5): 0 verified, 6 diverged, 75 busy, 1 unsupported, 5 blocked, or
    /// the round's own.
    public var exitCode: Int32 {
        switch result {
        case .verified: 0
        case .diverged: 6
        case .busy: 75
        case .unsupported: 1
        case .blocked: 5
        case .notCompared: sync.outcome.exitCode
        }
    }
}

extension SyncEngine {
    /// Digest reads per verification before it gives up as `busy` (R14).
    static let digestsPerVerify = 3

    /// R10: runs a round, then proves that every local entity equals the server's by comparing digests at one cursor
    /// (api-v1 §14). Differing buckets are listed, each differing entity is read back, and the comparison runs once
    /// more. Adds one history row of kind `verify`.
    public func verify() async -> VerifyReport {
        let round = await performSync()
        guard round.outcome.isCompleted else { return VerifyReport(sync: round, result: .notCompared) }
        let started = now
        let result: VerifyReport.Result
        // What the verification did beyond the first round: later runs' counts and its own give-backs.
        var counts = SyncCounts()
        do {
            result = try await compareWithServer(&counts)
        } catch {
            var failed = round
            failed.counts += counts
            failed.outcome = (error as? RoundStop).map(outcome(of:)) ?? .error("\(error)")
            failed.message = failed.outcome.message
            recordVerify(.notCompared, message: failed.message, startedAt: started)
            return VerifyReport(sync: failed, result: .notCompared)
        }
        var report = VerifyReport(sync: await lastReportAfterVerify(round), result: result)
        report.sync.counts = round.counts
        report.sync.counts += counts
        if case .diverged = result { report.sync.message = "the device differs from the server" }
        recordVerify(result, message: report.sync.message, startedAt: started)
        return report
    }

    /// The steps of R10 after the round.
    private func compareWithServer(_ counts: inout SyncCounts) async throws -> VerifyReport.Result {
        guard try readEngineState().serverFeatures.has(ServerFeatures.digest) else { return .unsupported }
        let blockers = try blockingEntities()
        guard blockers.isEmpty else {
            // R15: a blocked device still gives back what it holds acknowledged and the server lacks. A file copied
            // back by hand shows only here to a device whose cursor the copy still holds, and a dead letter may wait
            // for its user for days.
            var counters = SyncCounts()
            try await giveBack(since: nil, readingBack: false, unacknowledged: false, &counters)
            counts.givenBack += counters.givenBack
            return .blocked(blockers)
        }
        var repaired = 0
        var repairedOnce = false
        var reads = 0
        var readsBehind = 0
        var bootstrapped = false
        while reads < Self.digestsPerVerify {
            reads += 1
            // The device's digest is computed while the server computes its own: each is one consistent snapshot,
            // and the cursors below say whether they are of the same state.
            async let answer = network.getDigest()
            let local = try unitOfWork { store in try LocalDigest(store, hashing: hashing) }
            let server: SyncDigest
            do {
                server = try await answer
            } catch {
                throw stop(for: error)
            }
            if server.cursor > local.cursor {
                // The server moved on: pull, then read the digest again.
                try requireCompleted(await performSync(), counting: &counts)
                continue
            }
            if server.cursor < local.cursor {
                // Read again (R10). Below twice, the server's history went back (restored from a backup, or reset):
                // no pull reaches the device's cursor, and only a bootstrap brings the device to the server's state.
                readsBehind += 1
                guard readsBehind == 2, !bootstrapped else { continue }
                bootstrapped = true
                try requireCompleted(await forceFullResync(), counting: &counts)
                reads = 0
                continue
            }
            readsBehind = 0
            let digest = local.builder.digest(cursor: local.cursor)
            if digest.hash == server.hash && digest.count == server.count { return .verified(repaired: repaired) }
            // The cursor moved while the buckets were listed: compare again.
            guard let differing = try await differences(local, server, listedAt: server.cursor) else { continue }
            if repairedOnce {
                return .diverged(
                    differing: differing.map { "\($0.type.rawValue) \($0.id)" }.sorted(), repaired: repaired)
            }
            // R15: what this device holds and the server lost goes back before the read-backs take the server's copy.
            var counters = SyncCounts()
            try await giveBack(since: nil, readingBack: false, differing: differing, unacknowledged: false, &counters)
            counts.givenBack += counters.givenBack
            repaired = try await repair(differing)
            repairedOnce = true
            reads = 0
        }
        return .busy
    }

    /// Whether the local store holds the entity.
    static func holds(_ type: MutationEntityType, _ id: String, _ store: any DataStoreProtocol) throws -> Bool {
        switch type {
        case .event: try store.findEvent(id: id) != nil
        case .eventType: try store.findEventType(id: id) != nil
        case .geofence: try store.findGeofence(id: id) != nil
        case .propertyDefinition: try store.findPropertyDefinition(id: id) != nil
        }
    }

    /// Entities with a queued mutation (live or dead) or a debt: R10's `blocked_by`.
    private func blockingEntities() throws -> [VerifyBlocker] {
        try unitOfWork { store in
            var blockers = try store.fetchPendingMutations().map {
                VerifyBlocker(entityType: $0.entityType, id: $0.entityId, reason: $0.isLive ? .queued : .deadLetter)
            }
            blockers += try store.owedEntities().map {
                VerifyBlocker(entityType: $0.entityType, id: $0.id, reason: .owed)
            }
            var seen: Set<String> = []
            return blockers.filter { seen.insert($0.id).inserted }
        }
    }

    /// Reads back each differing entity (R4's read-back: 200 writes it, 404 removes it locally); returns how many
    /// were written.
    private func repair(_ differing: [Difference]) async throws -> Int {
        try unitOfWork { store in
            for entity in differing { try store.markOwed(entity.type, id: entity.id, reason: .verify) }
        }
        var counters = SyncCounts()
        try await readBackOwed(&counters)
        let stillOwed = try unitOfWork { store in Set(try store.owedEntities().map(\.id)) }
        return differing.filter { !stillOwed.contains($0.id) }.count
    }

    /// The report of the last round (a pull during the verification may have run one), with the state now.
    private func lastReportAfterVerify(_ round: SyncReport) async -> SyncReport {
        var report = lastReport ?? round
        try? refreshObservation()
        report.pending = observedCounts.pending
        report.deadLetters = observedCounts.failed
        report.owed = observedOwed
        report.cursor = observedEngineState.cursor
        return report
    }

    /// One history row of kind `verify` (S19 as R10 changes it).
    private func recordVerify(_ result: VerifyReport.Result, message: String?, startedAt: Date) {
        let (status, outcome): (SyncHistoryEntry.Status, String) =
            switch result {
            case .verified: (.success, "verified")
            case .diverged: (.failed, "diverged")
            case .busy: (.partial, "busy")
            case .blocked: (.partial, "blocked")
            case .unsupported: (.failed, "unsupported")
            case .notCompared: (.failed, "error")
            }
        let finished = now
        var counts = SyncCounts()
        counts.pulled =
            switch result {
            case .verified(let repaired), .diverged(_, let repaired): repaired
            default: 0
            }
        do {
            try unitOfWork { store in
                try store.appendSyncHistory(
                    SyncHistoryEntry(
                        id: historyIds.generate(at: finished), startedAt: startedAt, finishedAt: finished,
                        durationMs: Int((finished.timeIntervalSince(startedAt) * 1000).rounded()), kind: .verify,
                        status: status, outcome: outcome, message: message, counts: counts),
                    keepLast: configuration.historyLimit)
            }
        } catch {
            logger.warning("the verification's history row was not written", metadata: ["error": "\(error)"])
        }
    }

    /// A round a verification runs must push and pull, or the comparison means nothing.
    private func requireCompleted(_ round: SyncReport, counting counts: inout SyncCounts) throws {
        counts += round.counts
        guard round.outcome.isCompleted else { throw RoundStop.error(round.message ?? round.outcome.name) }
    }
}

/// Every local entity's hash, added up as the server adds its own (api-v1 §14), read in one unit of work with the
/// cursor it stands for.
struct LocalDigest {
    struct Item {
        let type: MutationEntityType
        let sum: DigestSum
    }

    static let eventsPerPage = 5000

    let cursor: Int64
    var builder = DigestBuilder()
    /// By bucket number (0x00–0xff), then by id.
    var items = [[String: Item]](repeating: [:], count: 256)

    init(_ store: any DataStoreProtocol, hashing: any SHA256Hashing) throws {
        cursor = try store.loadEngineState().cursor
        func add(_ type: MutationEntityType, _ id: String, _ bytes: [UInt8]) {
            let sum = DigestSum(hash: hashing.digest(of: bytes))
            builder.add(type, id: id, sum: sum)
            items[EntityDigest.bucketNumber(of: id)][id] = Item(type: type, sum: sum)
        }
        for type in try store.fetchAllEventTypes() { add(.eventType, type.id, try EntityDigest.canonicalBytes(type)) }
        // Events a page at a time (keyset, inside this unit of work): a million-event account is not held whole.
        var after: EventPosition?
        while true {
            let page = try store.fetchEvents(
                matching: EventQuery(limit: Self.eventsPerPage, oldestFirst: true, after: after))
            guard let last = page.last else { break }
            for event in page { add(.event, event.id, try EntityDigest.canonicalBytes(event)) }
            after = EventPosition(last)
        }
        for fence in try store.fetchAllGeofences() { add(.geofence, fence.id, try EntityDigest.canonicalBytes(fence)) }
        for definition in try store.fetchAllPropertyDefinitions() {
            add(.propertyDefinition, definition.id, try EntityDigest.canonicalBytes(definition))
        }
    }
}
