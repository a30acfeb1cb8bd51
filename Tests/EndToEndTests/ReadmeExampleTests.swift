import Foundation
import Hashing
import Models
import Networking
import Persistence
import Protocols
import Sync
import Testing
import TrendyServer
import TrendyServerTesting

/// The README's "Use the libraries" snippet, as written there, against a live server: if the public API drifts
/// from the README, this stops compiling.
@Suite("End to end: the README example")
struct ReadmeExampleTests {
    @Test("the library example in the README runs as written and syncs")
    func readmeExample() async throws {
        try await EndToEnd.with { world in
            let path = world.directory.appendingPathComponent("trendy.sqlite").path
            let root = world.root
            let token = BearerTokens.hs256(
                user: world.user, secret: LiveTrendyServer.testSecret, expiresAt: Date().addingTimeInterval(3600))

            // --- from README.md ---
            let stores = try DefaultDataStoreFactory(.file(path: path))
            let client = APIClient(
                configuration: try .init(serverRoot: root), tokenProvider: StaticTokenProvider(token))
            let engine = SyncEngine(
                networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(),
                configuration: .standard(serverRoot: root))
            let events = EventStore(engine: engine, dataStoreFactory: stores)

            let coffee = try await events.createEventType(name: "Coffee")
            try await events.createEvent(eventTypeId: coffee.id, timestamp: .now)
            let report = await engine.performSync()
            // --- end ---

            #expect(report.outcome == .synced(bootstrapped: true))
            let other = try world.device("other")
            #expect(await other.sync().outcome == .synced(bootstrapped: true))
            #expect(try other.events.eventTypes().map(\.name) == ["Coffee"])
            #expect(try other.events.events().map(\.eventTypeId) == [coffee.id])
        }
    }
}
