import Foundation
import Models
import Protocols
import Sync
import Synchronization
import TestSupport
import Testing

func http(
    _ status: Int, _ problemType: String? = nil, message: String? = nil, retryAfter: TimeInterval? = nil,
    existingId: String? = nil
) -> NetworkError {
    .http(
        HTTPFailure(
            status: status, problemType: problemType, message: message, retryAfter: retryAfter, existingId: existingId))
}

/// Two devices of one user; `a` has a synced type, `b` has bootstrapped it.
func twoDevices() async throws -> (a: SyncHarness, b: SyncHarness, type: EventType) {
    let a = try SyncHarness()
    let type = try await a.syncedType()
    let b = try a.secondDevice()
    #expect(await b.engine.performSync().outcome == .synced(bootstrapped: true))
    return (a, b, type)
}

extension SyncHarness {
    /// sync-engine R15: `write` pushed and acknowledged while the round's pull fails, so this device's position is
    /// still one that `copy`, taken before, holds; then `copy` put back by hand, with no new history. The server has
    /// lost what the device holds acknowledged, and nothing has told the device yet.
    func acknowledgeThenLoseByHand(
        _ write: () async throws -> Void, restoring copy: InMemoryTrendyServer.Backup
    ) async throws {
        clock.advance(by: 10)
        try await write()
        network.setStickyError(http(503), for: .getChanges)
        _ = await engine.performSync()
        network.setStickyError(nil, for: .getChanges)
        guard try queue().isEmpty else { throw HarnessError("the write was not acknowledged") }
        clock.advance(by: 60)
        model.restore(copy, announcing: false)
    }

    /// An event type created locally and synced.
    func syncedType(_ name: String = "Coffee") async throws -> EventType {
        let type = try await events.createEventType(name: name)
        let report = await engine.performSync()
        guard report.outcome == .synced(bootstrapped: report.outcome.bootstrapped) else {
            throw HarnessError("setup sync failed: \(report)")
        }
        return type
    }

    /// A local event of `type`, `offset` seconds after the harness's start.
    @discardableResult
    func event(
        _ type: EventType, _ offset: Double = 0, configure: (inout Event) -> Void = { _ in }
    ) async throws -> Event {
        try await events.createEvent(
            eventTypeId: type.id, timestamp: Build.instant.addingTimeInterval(offset), configure: configure)
    }

    /// A synced type, an edit of it queued, and a sync whose update request is held at a gate: a run in flight.
    func syncHeldOnTypeUpdate(
        _ edit: @escaping (inout EventType) -> Void
    ) async throws -> (type: EventType, gate: CallGate, sync: Task<SyncReport, Never>) {
        let type = try await syncedType()
        _ = try await events.updateEventType(id: type.id, edit)
        let gate = network.hold(.updateEventTypeWithIdempotency)
        let engine = engine
        let sync = Task { await engine.performSync() }
        await gate.waitForArrivals(1)
        return (type, gate, sync)
    }

    /// A round whose batch of event creates the server commits under its key while the answer is lost (R5): the next
    /// send of that batch is answered from the key's record. Returns the round's report.
    @discardableResult
    func syncLosingCommittedBatch() async throws -> SyncReport {
        network.enqueue(.transport("lost"), for: .createEventsBatchWithIdempotency)
        let report = await engine.performSync()
        let sent = try #require(network.calls(of: .createEventsBatchWithIdempotency).last)
        let body = try JSONCoding.decode(
            BatchCreateEventsRequest.self, from: JSONCoding.encode(try #require(sent.body)))
        _ = try model.createEventsBatch(user: network.userId, body.events, key: sent.idempotencyKey)
        return report
    }

    /// The live and dead rows of one entity.
    func mutations(of id: String) throws -> [PendingMutation] { try queue().filter { $0.entityId == id } }

    /// Methods called on the network, in order, without the health check.
    var sentMethods: [MockNetworkClient.Method] { network.calls.map(\.method).filter { $0 != .getEventTypes } }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Collects every snapshot the engine publishes.
final class SnapshotRecorder: Sendable {
    private let engine: SyncEngine
    private let log = Log()
    private let task: Task<Void, Never>

    private final class Log: Sendable {
        let snapshots = Mutex<[SyncSnapshot]>([])
    }

    init(_ engine: SyncEngine) async {
        self.engine = engine
        let stream = await engine.snapshots()
        task = Task { [log] in
            for await snapshot in stream { log.snapshots.withLock { $0.append(snapshot) } }
        }
    }

    /// Returns what was seen once the engine's current snapshot has arrived, and stops listening. Yields instead
    /// of sleeping; gives up (recording an issue) if the stream never catches up.
    func finish() async -> [SyncSnapshot] {
        let current = await engine.snapshot
        var spins = 0
        while log.snapshots.withLock({ $0.last }) != current {
            spins += 1
            if spins > 100_000 {
                Issue.record("the snapshot stream never delivered the current snapshot")
                break
            }
            await Task.yield()
        }
        task.cancel()
        return log.snapshots.withLock { $0 }
    }
}
