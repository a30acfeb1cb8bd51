import Foundation
import Models
import Protocols

extension SyncEngine {
    /// Phase 4 (§4.7): event creates in batches of `batchSize` (`PushPlan.batches`), each under a key derived from
    /// its members.
    func pushEventCreates(
        _ mutations: [PendingMutation], _ run: inout PushRun, _ counters: inout RoundCounters
    )
        async throws
    {
        var ready: [PendingMutation] = []
        for mutation in mutations {
            if isDeferred(mutation, run) {
                deferMutation(mutation, &run, &counters)
            } else {
                ready.append(mutation)
            }
        }
        for unit in PushPlan.batches(ready, size: configuration.batchSize) {
            try crossUnitBoundary(&run)
            let claimed = try claim(unit, &run)
            var rows: [PendingMutation] = []
            var requests: [CreateEventRequest] = []
            var invalid: [(PendingMutation, Resolution)] = []
            for row in claimed {
                if case .createEvent(let request)? = try? PushRequest(row) {
                    rows.append(row)
                    requests.append(request)
                } else {
                    invalid.append((row, .counted("invalid payload: it does not decode as an event create")))
                }
            }
            if !invalid.isEmpty { try record(invalid, breaker: .none, &run, &counters) }
            if !rows.isEmpty { try await sendBatch(rows, requests, &run, &counters) }
            publishProgress(run)
        }
    }

    /// Sends one batch and records its answer; a thrown error is handled by §4.7.4.
    private func sendBatch(
        _ rows: [PendingMutation], _ requests: [CreateEventRequest], _ run: inout PushRun,
        _ counters: inout RoundCounters
    ) async throws {
        let response: BatchCreateEventsResponse
        do {
            response = try await network.createEventsBatch(
                requests, idempotencyKey: PushPlan.batchKey(rows, hashing: hashing))
        } catch {
            try await handleBatchError(error, rows, requests, &run, &counters)
            return
        }
        try await recordBatchAnswer(response, rows, requests, &run, &counters)
    }

    private enum BatchErrorHandling {
        /// Transport, 401, 429, in flight, cancellation: as for a single request; nothing recorded on the items.
        case asSingleRequest
        /// 4xx, a duplicate-class 5xx or an undecodable 2xx: every item again, alone.
        case oneItemFallback
        /// Another 5xx or an invalid response: every item fails once.
        case failEveryItem(String)
    }

    private static func handling(of error: any Error) -> BatchErrorHandling {
        guard let error = error as? NetworkError else { return .asSingleRequest }
        switch error {
        case .cancelled, .transport: return .asSingleRequest
        case .decoding: return .oneItemFallback
        case .invalidResponse: return .failEveryItem(error.description)
        case .http(let failure):
            if failure.status == 401 || failure.status == 429 || failure.problemType == "idempotency_in_flight" {
                return .asSingleRequest
            }
            let message = (failure.message ?? "").lowercased()
            if failure.status < 500 || ["duplicate", "unique", "23505"].contains(where: message.contains) {
                return .oneItemFallback
            }
            return .failEveryItem(error.description)
        }
    }

    private func handleBatchError(
        _ error: any Error, _ rows: [PendingMutation], _ requests: [CreateEventRequest], _ run: inout PushRun,
        _ counters: inout RoundCounters
    ) async throws {
        switch Self.handling(of: error) {
        case .asSingleRequest:
            _ = try await resolve(error, rows[0], &run, &counters)
        case .failEveryItem(let message):
            try record(
                rows.map { ($0, .counted("batch failed: \(message)")) }, breaker: .reset(success: false), &run,
                &counters)
        case .oneItemFallback:
            for (row, request) in zip(rows, requests) {
                try crossUnitBoundary(&run)
                do {
                    let answer = try await network.createEventsBatch(
                        [request], idempotencyKey: PushPlan.batchKey([row], hashing: hashing))
                    try await recordBatchAnswer(answer, [row], [request], &run, &counters)
                } catch let stop as RoundStop {
                    throw stop
                } catch is BreakerTripped {
                    throw BreakerTripped()
                } catch {
                    let (resolution, effect) = try await resolve(error, row, &run, &counters)
                    try record([(row, resolution)], breaker: effect, &run, &counters)
                }
            }
        }
    }

    /// §4.7.3: each item by its id among `created`, else by its HealthKit sample id, else by its index among
    /// `errors`; an item in neither list is a counted failure. All outcomes in one unit of work.
    private func recordBatchAnswer(
        _ response: BatchCreateEventsResponse, _ rows: [PendingMutation], _ requests: [CreateEventRequest],
        _ run: inout PushRun, _ counters: inout RoundCounters
    ) async throws {
        var created = CreatedLookup(response.created)
        let errorsByIndex = Dictionary(response.errors.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var outcomes: [(PendingMutation, Resolution)] = []
        var stop: (any Error)?
        for (index, (row, request)) in zip(rows, requests).enumerated() {
            if created.take(id: row.entityId.lowercased()) != nil {
                outcomes.append((row, .completed))
            } else if let sample = request.healthKitSampleId, let match = created.take(healthKitSampleId: sample) {
                outcomes.append((row, .completedAs(match)))
            } else if let entry = errorsByIndex[index] {
                let message = entry.message.lowercased()
                if entry.type == "conflict" || message.contains("duplicate") || message.contains("unique") {
                    do {
                        outcomes.append(
                            (
                                row,
                                try await confirmDuplicate(
                                    row, existingId: entry.existingId?.lowercased(), message: entry.message, &run)
                            ))
                    } catch {
                        // The confirmation ended the round: record the other answers first, then stop.
                        stop = error
                        break
                    }
                } else {
                    outcomes.append((row, .counted(entry.message)))
                }
            } else {
                outcomes.append((row, .counted("not acknowledged by server")))
            }
        }
        // S59: the multiplier resets on a 2xx status, which the client reports; a 207 in which every item failed
        // is still a 2xx, and a 400 carrying the same body is not.
        try record(outcomes, breaker: .reset(success: response.isSuccessStatus), &run, &counters)
        if let stop { throw stop }
    }
}

/// The `created` list of a batch answer, each entry matched at most once, in list order: by id through a dictionary
/// (a batch of 500 matched by scanning cost 125 000 string comparisons), by HealthKit sample id by a scan (rare).
struct CreatedLookup {
    private let entries: [APIEvent]
    private var taken: [Bool]
    private var byId: [String: [Int]] = [:]

    init(_ entries: [APIEvent]) {
        self.entries = entries
        self.taken = Array(repeating: false, count: entries.count)
        for (index, entry) in entries.enumerated() { byId[entry.id.lowercased(), default: []].append(index) }
    }

    mutating func take(id: String) -> APIEvent? {
        guard let index = byId[id]?.first(where: { !taken[$0] }) else { return nil }
        taken[index] = true
        return entries[index]
    }

    mutating func take(healthKitSampleId sample: String) -> APIEvent? {
        guard let index = entries.indices.first(where: { !taken[$0] && entries[$0].healthKitSampleId == sample })
        else { return nil }
        taken[index] = true
        return entries[index]
    }
}
