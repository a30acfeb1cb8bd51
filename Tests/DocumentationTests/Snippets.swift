import Foundation
import Hashing
import Models
import Persistence
import Protocols
import Sync
import Synchronization
import TestSupport
import Testing

// The code of the DocC getting-started articles (Modules/*/*.docc/GettingStarted.md), compiled and run here.
// Between `// snippet: Module/N` and `// end`, each block must equal the article's N-th swift block (after removing
// the common indentation); `DocumentationSnippetTests` checks it.

// snippet: Protocols/1
struct EnvironmentTokenProvider: TokenProvider {
    var variable = "TRENDY_TOKEN"

    func currentToken() async -> String? { ProcessInfo.processInfo.environment[variable] }

    func refreshToken() async -> String? { nil }
}
// end

// snippet: Protocols/2
final class MonotonicClock: SyncClock {
    private let last = Mutex(Date.distantPast)

    func now() -> Date {
        last.withLock { last in
            last = max(last, Date())
            return last
        }
    }

    func sleep(for seconds: TimeInterval) async throws {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }
}
// end

func modelsGettingStarted() throws -> (Data, TextLimit.Problem?, Date?, Date?) {
    // snippet: Models/1
    let now = Date()
    let coffee = EventType(id: UUIDv7.generate(at: now), name: "Coffee", createdAt: now)
    let body = try JSONCoding.encode(CreateEventTypeRequest(coffee))
    // end
    // snippet: Models/2
    let refusal = TextLimit.problem(in: "flat\u{0}white", limitBytes: TextLimit.notesBytes)
    // end
    // snippet: Models/3
    let whole = RFC3339.date(from: "2026-11-21T09:30:00Z")
    let fraction = RFC3339.date(from: "2026-11-21T09:30:00.25Z")
    // end
    return (body, refusal, whole, fraction)
}

func persistenceGettingStarted(path: String) throws -> (EventType?, MutationCounts) {
    // snippet: Persistence/1
    let factory = try DefaultDataStoreFactory(.file(path: path))
    let store = factory.makeDataStore()
    let coffee = try store.upsertEventType(id: UUIDv7.generate(at: Date())) { type in
        type.name = "Coffee"
    }
    try store.save()

    let reader = factory.makeDataStore()
    let stored = try reader.findEventType(id: coffee.id)
    let counts = try reader.countMutations()
    try reader.save()
    // end
    return (stored, counts)
}

// snippet: Sync/1
func logCoffee(client: any NetworkClientProtocol, stores: any DataStoreFactory) async throws -> SyncReport {
    let engine = SyncEngine(networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256())
    let events = EventStore(engine: engine, dataStoreFactory: stores)

    let coffee = try await events.createEventType(name: "Coffee")
    try await events.createEvent(eventTypeId: coffee.id, timestamp: Date())
    return await engine.performSync()
}
// end

@Suite("DocC getting-started snippets run")
struct DocumentationExampleTests {
    @Test("Protocols: the token provider reads its variable; the clock never goes back")
    func protocols() async throws {
        #expect(await EnvironmentTokenProvider(variable: "TRENDY_DOC_SNIPPET_UNSET").currentToken() == nil)
        let clock = MonotonicClock()
        let first = clock.now()
        #expect(clock.now() >= first)
    }

    @Test("Models: a request from an entity; a NUL refused before sending; both time forms read")
    func models() throws {
        let (body, refusal, whole, fraction) = try modelsGettingStarted()
        #expect(String(decoding: body, as: UTF8.self).contains(#""name":"Coffee""#))
        #expect(refusal == .nulCharacter)
        #expect(whole != nil && fraction.map { $0.timeIntervalSince(whole ?? $0) } == 0.25)
    }

    @Test("Persistence: a file database, an upsert in one unit of work, read back in another")
    func persistence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-docs-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (stored, counts) = try persistenceGettingStarted(path: directory.appendingPathComponent("t.sqlite").path)
        #expect(stored?.name == "Coffee" && stored?.syncStatus == .synced)
        #expect(counts == MutationCounts(pending: 0, failed: 0), "server data queues nothing")
    }

    @Test("Sync and TestSupport: log offline, sync against the in-memory server, assert the calls")
    func syncWithTestSupport() async throws {
        // snippet: TestSupport/1
        let server = InMemoryTrendyServer(clock: SystemClock())
        let client = MockNetworkClient(server: server)
        let stores = try MockDataStoreFactory()

        let report = try await logCoffee(client: client, stores: stores)

        #expect(report.outcome == .synced(bootstrapped: true))
        #expect(client.calls(of: .createEventTypeWithIdempotency).count == 1)
        #expect(stores.store.saveCallCount > 0)
        // end
    }
}
