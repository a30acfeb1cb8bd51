import Foundation
import Models
import Protocols
import Sync
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

extension SyncHarness {
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
    private let task: Task<[SyncSnapshot], Never>

    init(_ engine: SyncEngine) async {
        let stream = await engine.snapshots()
        task = Task {
            var seen: [SyncSnapshot] = []
            for await snapshot in stream { seen.append(snapshot) }
            return seen
        }
    }

    /// Stops listening and returns what was seen.
    func finish() async -> [SyncSnapshot] {
        await Task.yield()
        task.cancel()
        return await task.value
    }
}
