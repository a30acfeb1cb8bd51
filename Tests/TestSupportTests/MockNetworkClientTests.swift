import Foundation
import Models
import Protocols
import TestSupport
import Testing

@Suite("MockNetworkClient")
struct MockNetworkClientTests {
    let failure = NetworkError.http(HTTPFailure(status: 500, message: "boom"))

    func newType(_ client: MockNetworkClient, name: String = "Tea") async throws -> APIEventType {
        try await client.createEventTypeWithIdempotency(
            CreateEventTypeRequest(id: UUIDv7.generate(at: Date()), name: name, color: "green", icon: "leaf"),
            idempotencyKey: "key-\(name)")
    }

    @Test("by default calls reach the in-memory model: a create appears in the change feed")
    func modelBacked() async throws {
        let client = MockNetworkClient(server: InMemoryTrendyServer(clock: SystemClock()))
        let type = try await newType(client)
        let feed = try await client.getChanges(since: 0, limit: 10)
        #expect(feed.changes.map(\.entityId) == [type.id] && feed.changes.first?.userId == client.userId)
    }

    @Test("queued results answer the next calls in order, then the model answers again")
    func queues() async throws {
        let client = MockNetworkClient(server: InMemoryTrendyServer(clock: SystemClock()))
        client.enqueue(failure, for: .getEventTypes)
        client.enqueue(
            [APIEventType(id: "x", userId: "u", name: "Scripted", color: "c", icon: "i")], for: .getEventTypes)
        await #expect(throws: failure) { try await client.getEventTypes() }
        #expect(try await client.getEventTypes().map(\.name) == ["Scripted"])
        #expect(try await client.getEventTypes().isEmpty)
        #expect(client.getEventTypesCallCount == 3)
    }

    @Test("sticky errors fail every call until cleared: per method, or every method")
    func stickyErrors() async throws {
        let client = MockNetworkClient(server: InMemoryTrendyServer(clock: SystemClock()))
        client.setStickyError(.transport("offline"), for: .getLatestCursor)
        await #expect(throws: NetworkError.transport("offline")) { try await client.getLatestCursor() }
        await #expect(throws: NetworkError.transport("offline")) { try await client.getLatestCursor() }
        #expect(try await client.getEventTypes().isEmpty)
        client.setStickyError(.transport("down"))
        await #expect(throws: NetworkError.transport("down")) { try await client.getEventTypes() }
        client.setStickyError(nil)
        client.setStickyError(nil, for: .getLatestCursor)
        #expect(try await client.getLatestCursor() == 0)
    }

    @Test("the call log keeps every argument, key and body")
    func callLog() async throws {
        let server = InMemoryTrendyServer(clock: SystemClock())
        let client = MockNetworkClient(server: server)
        let type = try await newType(client)
        _ = try await client.updateEventTypeWithIdempotency(
            id: type.id, UpdateEventTypeRequest(name: "Black tea", color: nil, icon: nil), idempotencyKey: "k2")
        let created = try #require(server.changes(of: client.userId).first)
        let createdAt = try #require(created.createdAt)
        _ = try await client.getChanges(since: created.position, limit: 25)
        let update = try #require(client.calls(of: .updateEventTypeWithIdempotency).first)
        #expect(update.arguments == ["id": type.id] && update.idempotencyKey == "k2")
        #expect(update.body?["name"] == "Black tea" && update.body?["color"] == nil, "a partial update: color left out")
        #expect(
            client.calls(of: .getChanges).first?.arguments == [
                "since": "\(created.id)", "since_created_at": RFC3339.string(from: createdAt), "limit": "25",
            ])
        #expect(
            client.calls.map(\.method) == [
                .createEventTypeWithIdempotency, .updateEventTypeWithIdempotency, .getChanges,
            ])
    }

    @Test("a gate holds calls in flight until released; a cancelled held call throws cancelled")
    func gates() async throws {
        let client = MockNetworkClient(server: InMemoryTrendyServer(clock: SystemClock()))
        let gate = client.hold(.getEventTypes)
        let held = Task { try await client.getEventTypes() }
        let cancelled = Task { try await client.getEventTypes() }
        await gate.waitForArrivals(2)
        cancelled.cancel()
        await #expect(throws: NetworkError.cancelled) { try await cancelled.value }
        _ = try await newType(client)
        gate.release()
        #expect(try await held.value.count == 1, "the held call saw the type created meanwhile")
        client.stopHolding(.getEventTypes)
        #expect(try await client.getEventTypes().count == 1)
    }

    @Test("getAllEvents pages through getEvents, so scripted pages apply")
    func getAllEventsPages() async throws {
        let client = MockNetworkClient(server: InMemoryTrendyServer(clock: SystemClock()))
        func event(_ id: String) -> APIEvent {
            APIEvent(id: id, userId: "u", eventTypeId: "t", timestamp: Date(millisecondsSince1970: 0))
        }
        client.enqueue([event("a"), event("b")], for: .getEvents)
        client.enqueue([event("b"), event("c")], for: .getEvents)
        client.enqueue([event("d")], for: .getEvents)
        #expect(try await client.getAllEvents(batchSize: 2).map(\.id) == ["a", "b", "c", "d"])
        #expect(client.calls(of: .getEvents).map { $0.arguments["offset"] } == ["0", "2", "4"])
    }

    @Test("getAllEvents can be scripted whole like every other call: a queued answer, a queued error, a sticky one")
    func getAllEventsScripted() async throws {
        let client = MockNetworkClient(server: InMemoryTrendyServer(clock: SystemClock()))
        let events = [APIEvent(id: "x", userId: "u", eventTypeId: "t", timestamp: Date(millisecondsSince1970: 0))]
        client.enqueue(events, for: .getAllEvents)
        client.enqueue(NetworkError.transport("down"), for: .getAllEvents)
        #expect(try await client.getAllEvents(batchSize: 50).map(\.id) == ["x"])
        await #expect(throws: NetworkError.transport("down")) { try await client.getAllEvents(batchSize: 50) }
        client.setStickyError(.http(HTTPFailure(status: 503)), for: .getAllEvents)
        await #expect(throws: NetworkError.self) { try await client.getAllEvents(batchSize: 50) }
        client.setStickyError(nil, for: .getAllEvents)
        #expect(try await client.getAllEvents(batchSize: 50).isEmpty, "then the model answers: no events")
        #expect(client.calls(of: .getAllEvents).count == 4)
    }

    @Test("two clients of one model are two users")
    func users() async throws {
        let model = InMemoryTrendyServer(clock: SystemClock())
        let alice = MockNetworkClient(server: model, userId: UUID().uuidString)
        let bob = MockNetworkClient(server: model, userId: UUID().uuidString)
        _ = try await newType(alice)
        #expect(try await bob.getEventTypes().isEmpty && model.eventTypes(of: alice.userId).count == 1)
    }
}
