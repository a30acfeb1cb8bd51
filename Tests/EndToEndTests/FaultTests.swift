import Foundation
import Models
import Networking
import Protocols
import Sync
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

@Suite("End to end: injected faults")
struct FaultTests {
    /// Keys sent more than once by `method` on paths starting with `path`: re-sends after a lost answer.
    func resentKeys(_ world: EndToEnd, _ method: String, _ path: String) -> Set<String> {
        var seen: [String: Int] = [:]
        for request in world.requests where request.method == method && request.path.hasPrefix(path) {
            if let key = request.headers["idempotency-key"] { seen[key, default: 0] += 1 }
        }
        return Set(seen.filter { $0.value > 1 }.keys)
    }

    @Test(
        "sync-engine §9.2 --fault-drop on batches and PUTs: answers lost after the commit, re-sent under the same key, no duplicate"
    )
    func droppedAnswers() async throws {
        var server = LiveTrendyServer.testConfiguration()
        server.faults.probabilityDrop = 0.4
        server.faults.seed = 3
        try await EndToEnd.with(server) { world in
            let a = try world.device("a")
            let type = try await a.events.createEventType(name: "Steps")
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            var created: [Event] = []
            for index in 0..<160 {
                created.append(try await a.events.createEvent(eventTypeId: type.id, timestamp: start + Double(index)))
            }
            let first = await a.syncUntilSynced()
            #expect(first.last?.outcome.name == "synced", "\(first.map(\.outcome))")
            #expect(first.contains { $0.outcome.name == "offline" }, "at least one answer was dropped")

            for event in created.prefix(20) {
                _ = try await a.events.updateEvent(id: event.id) { $0.notes = "edited" }
            }
            let second = await a.syncUntilSynced()
            #expect(second.last?.outcome.name == "synced", "\(second.map(\.outcome))")

            let server = try await a.client.getAllEvents(batchSize: 500)
            #expect(server.count == created.count && Set(server.map(\.id)).count == created.count, "no duplicates")
            #expect(server.filter { $0.notes == "edited" }.count == 20)
            #expect(!resentKeys(world, "POST", "/api/v1/events/batch").isEmpty, "a batch was re-sent under its key")
            #expect(!resentKeys(world, "PUT", "/api/v1/events/").isEmpty, "a PUT was re-sent under its key")
            #expect(try await a.engine.mutations().isEmpty)

            let b = try world.device("b")
            #expect(await b.syncUntilSynced().last?.outcome.name == "synced")
            #expect(try b.contents() == a.contents())
        }
    }

    @Test("sync-engine §9.7 --fault-429 with Retry-After: the quiet period holds every request until it has passed")
    func quietPeriod() async throws {
        var server = LiveTrendyServer.testConfiguration()
        server.faults.probability429 = 1
        server.faults.retryAfterSeconds = 20
        try await EndToEnd.with(server) { world in
            let a = try world.device("a", rateLimitRetries: 0)
            _ = try await a.events.createEventType(name: "Sleep")
            let limited = await a.sync()
            #expect(limited.outcome == .rateLimited(retryAfter: 20))
            let received = world.requests.count
            #expect(received == 1, "one health check, answered 429")

            world.clock.advance(by: 10)
            #expect(await a.sync().outcome == .rateLimited(retryAfter: 10))
            #expect(await a.engine.snapshot.retryAfterSeconds == 10)
            await world.stopServer()
            try await world.startServer { $0.faults = FaultConfiguration() }
            #expect(await a.sync().outcome.name == "rate_limited")
            #expect(world.requests.count == received, "no request while quiet, even with the server healthy")

            world.clock.advance(by: 10)
            #expect(await a.sync().outcome == .synced(bootstrapped: true))
            #expect(world.requests.count > received)
        }
    }
}
