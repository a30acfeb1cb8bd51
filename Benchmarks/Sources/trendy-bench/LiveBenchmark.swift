import ArgumentParser
import Foundation
import Hashing
import Models
import Networking
import Persistence
import Protocols
import Sync
import Synchronization
import TrendyServerTesting

/// Live propagation in process (sync-engine R12, R13): two devices in live mode on one trendy-server (or on two
/// instances sharing PostgreSQL); A writes one event at a time, and the time until B's observation of its database
/// sees the entry applied is one sample. `make bench-live` runs it; docs/performance.md has the figures.
struct LiveBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live", abstract: "A's local write → B's observation fires, two live engines.")

    @Option(help: "Writes, one at a time.") var writes = 1000
    @Flag(help: "Two trendy-server instances on PostgreSQL (TRENDY_TEST_POSTGRES_URL), A on one, B on the other.")
    var postgres = false

    func run() async throws {
        if postgres {
            guard LiveTrendyServer.postgresTestURL() != nil else {
                throw ValidationError("--postgres needs TRENDY_TEST_POSTGRES_URL (scripts/with-postgres)")
            }
            setenv("TRENDY_TEST_SERVER_STORAGE", "postgres", 1)
        } else {
            unsetenv("TRENDY_TEST_SERVER_STORAGE")
        }
        // One configuration for both instances: on PostgreSQL, one new schema they share.
        let configuration = LiveTrendyServer.testConfiguration()
        let first = try await LiveTrendyServer.start(configuration)
        let second = postgres ? try await LiveTrendyServer.start(configuration) : first
        defer {
            Task {
                await first.stop()
                if postgres { await second.stop() }
            }
        }
        let token = first.newUser().token
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-live-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try Device(directory.appendingPathComponent("a.sqlite").path, server: first, token: token)
        let b = try Device(directory.appendingPathComponent("b.sqlite").path, server: second, token: token)

        let type = try await a.events.createEventType(name: "Live")
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        await a.engine.startLive()
        await b.engine.startLive()
        try await b.waitFor(live: .streaming)
        try await a.waitFor(live: .streaming)

        // B's observation (R13): its cursor, which moves in the transaction that applies each entry.
        let seen = Mutex<Int64>(0)
        let observation = b.stores.observe { store in try store.loadEngineState().cursor }
        let watcher = Task {
            for try await cursor in observation { seen.withLock { $0 = cursor } }
        }
        defer { watcher.cancel() }
        var samples = Samples()
        let base = Date()
        for index in 0..<writes {
            let before = seen.withLock { $0 }
            let started = ContinuousClock.now
            try await a.events.createEvent(eventTypeId: type.id, timestamp: base.addingTimeInterval(Double(index))) {
                $0.notes = "live \(index)"
            }
            let deadline = started + .seconds(10)
            while seen.withLock({ $0 }) <= before {
                guard ContinuousClock.now < deadline else { throw ValidationError("write \(index) never reached B") }
                await Task.yield()
            }
            let elapsed = ContinuousClock.now - started
            samples.append(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
        }
        await a.engine.stopLive()
        await b.engine.stopLive()
        let setting = postgres ? "two PostgreSQL instances" : "one server (SQLite in memory)"
        print(
            "| A's write → B's observation, \(writes) writes one at a time, \(setting) | "
                + "p50 \(Self.ms(samples.percentile(0.5))) ms, p99 \(Self.ms(samples.percentile(0.99))) ms, "
                + "max \(Self.ms(samples.percentile(1))) ms |")
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }

    /// One device: a SQLite file, an engine in live mode, its local store.
    struct Device {
        let stores: DefaultDataStoreFactory
        let engine: SyncEngine
        let events: EventStore

        init(_ path: String, server: LiveTrendyServer, token: String) throws {
            stores = try DefaultDataStoreFactory(.file(path: path))
            let client = APIClient(
                configuration: try APIClient.Configuration(serverRoot: server.root),
                tokenProvider: StaticTokenProvider(token))
            engine = SyncEngine(
                networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(),
                configuration: .throughput(serverRoot: server.root))
            events = EventStore(engine: engine, dataStoreFactory: stores)
        }

        func waitFor(live: LiveState) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while await engine.snapshot.live != live {
                guard ContinuousClock.now < deadline else { throw ValidationError("never \(live)") }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }
}
