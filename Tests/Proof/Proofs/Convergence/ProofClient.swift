import Foundation
import Hashing
import Models
import Networking
import Persistence
import Protocols
import Sync
import Synchronization
import TestSupport
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// One device of the run: an `EventStore` and a `SyncEngine` on a SQLite file, `APIClient` over loopback — twice,
/// as an app and its widget (or trendyctl's `--watch` and a one-off `sync`) are two processes on one database: each
/// pair has a database connection pool of its own, and the device's rounds take one lock (`DeviceLock`).
struct ProofClient {
    let name: String
    /// The device's database file.
    let path: String
    /// Where the device's files other than its database live (trendyctl's home, for `killedCLISync`).
    let directory: URL
    /// The server the device talks to (its balancer lane behind several instances), and its static token.
    let root: ServerRoot
    let token: String
    let engine: SyncEngine
    let events: EventStore
    /// The second process on the same database.
    let twinEngine: SyncEngine
    let twinEvents: EventStore
    let lock = DeviceLock()
    /// The database, read directly (engine state, owed entities, the queue).
    let stores: DefaultDataStoreFactory
    /// Operations left before this device comes back online; it does not sync meanwhile.
    var offlineFor = 0
    /// The last local copy of every entity this device held, for restores of deleted ones (an earlier export).
    var exported: [String: Exported] = [:]

    enum Exported {
        case eventType(EventType)
        case event(Event)
        case geofence(Geofence)
    }

    /// A live device (R12) keeps real time: its reconnect backoffs wait, short ones (`liveTimings`).
    let isLive: Bool

    /// Live mode's timings in the proof: the rules of R12, compressed.
    static let liveTimings: LiveTimings = {
        var timings = LiveTimings()
        timings.baseBackoff = 0.02
        timings.maxBackoff = 0.3
        timings.pollInterval = 0.5
        return timings
    }()

    init(
        name: String, directory: URL, root: ServerRoot, token: String, clock: any SyncClock, live: Bool = false,
        tokens: (any TokenProvider)? = nil
    ) throws {
        isLive = live
        self.name = name
        self.directory = directory
        self.root = root
        self.token = token
        let path = directory.appendingPathComponent("\(name).sqlite").path
        self.path = path
        @Sendable func process() throws -> (SyncEngine, EventStore, DefaultDataStoreFactory) {
            let stores = try DefaultDataStoreFactory(.file(path: path), clock: clock)
            // The database's device, as trendyctl sends it: compaction keeps its feed range (api-v1 §16).
            let device = DeviceHeader(id: try stores.storage.deviceIdentity().id, client: "trendy-proof/1")
            let client = APIClient(
                configuration: try APIClient.Configuration(
                    serverRoot: root, requestTimeout: 10, resourceTimeout: 20, maxRateLimitRetries: 1,
                    device: device),
                tokenProvider: tokens ?? StaticTokenProvider(token), clock: clock)
            var configuration = SyncConfiguration.standard(serverRoot: root)
            configuration.live = Self.liveTimings
            // Bootstraps list events four at a time: the faults then meet listings after pages are staged (S82, R11).
            configuration.bootstrapEventsPageSize = 4
            // Pulls of eight changes a page: faults and kills then cut pulls between pages, whose check at the feed's
            // head the next pull must make (sync-engine R15).
            configuration.changeFeedPageSize = 8
            let engine = SyncEngine(
                networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(), clock: clock,
                configuration: configuration)
            return (engine, EventStore(engine: engine, dataStoreFactory: stores, clock: clock), stores)
        }
        // Both processes open the new file at once, as a watcher and a command starting together do: each finds it
        // unmigrated, and both must open it.
        let opened = Mutex<[Int: Result<(SyncEngine, EventStore, DefaultDataStoreFactory), any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = Result { try process() }
            opened.withLock { $0[index] = result }
        }
        let both = opened.withLock { $0 }
        guard let first = both[0], let second = both[1] else {
            throw ProofError("a device's two processes did not open")
        }
        (engine, events, stores) = try first.get()
        (twinEngine, twinEvents, _) = try second.get()
    }

    /// Ids this device may hold apart from the server by design: those with a queued mutation (a dead letter keeps
    /// its local edit, sync-engine §9.1), those owed a read-back (R4), the children of a dead create, and the
    /// definitions of types whose definitions a bootstrap could not fetch yet (S84).
    func heldIds() throws -> Set<String> {
        try stores.saved { store in
            var held = Set(try store.fetchPendingMutations().map(\.entityId)).union(try store.owedEntities().map(\.id))
            let unfetched = try store.loadEngineState().unfetchedDefinitionTypes
            for definition in try store.fetchAllPropertyDefinitions() where unfetched.contains(definition.eventTypeId) {
                held.insert(definition.id)
            }
            return held
        }
    }

    /// True while a type's definitions wait to be fetched again (S84): this device knows it may lack some.
    func hasUnfetchedDefinitions() throws -> Bool {
        try !stores.saved { try $0.loadEngineState() }.unfetchedDefinitionTypes.isEmpty
    }

    /// Remembers the current copy of every type, event and geofence, as an export would.
    mutating func export() throws {
        let local = try entities()
        for (id, type) in local.types { exported[id] = .eventType(type) }
        for (id, event) in local.events { exported[id] = .event(event) }
        for (id, fence) in local.geofences { exported[id] = .geofence(fence) }
    }

    /// One round of `engine` (or the twin's) under the device's sync lock.
    func sync(twin: Bool = false) async -> SyncReport {
        let engine = twin ? twinEngine : engine
        return await lock.withLock { await engine.performSync() }
    }

    /// `verify()` (a round, then the digest comparison, R10) under the device's sync lock.
    func verify() async -> VerifyReport {
        await lock.withLock { await engine.verify() }
    }

    /// `trendyctl sync` on this device's database — a third process, as a user runs one beside the app — killed with
    /// SIGKILL `milliseconds` after it starts unless it ended first. It runs under the device's sync lock, as
    /// trendyctl's `flock` holds the device's other rounds back. What the kill leaves (a batch on the wire without
    /// its answer, a mutation marked in flight, a page applied without its cursor, a read-back owed) the device's
    /// next sync must finish with nothing lost and nothing twice.
    func killedCLISync(afterMilliseconds milliseconds: Int) async throws -> (killed: Bool, line: String) {
        let environment = trendyctlEnvironment(
            home: directory.appendingPathComponent("home-\(name)"), database: path, root: root, token: token)
        let outcome: Result<(Bool, String), any Error> = await lock.withLock {
            do {
                let running = try await ChildProcess.start("trendyctl", ["sync", "--json"], environment: environment)
                // A cancelled wait kills at once: no trendyctl outlives the move.
                try? await Task.sleep(for: .milliseconds(milliseconds))
                if running.exitStatus == nil { running.send(SIGKILL) }
                let status = await running.result().status
                return .success(
                    status == SIGKILL
                        ? (true, "trendyctl sync killed after \(milliseconds) ms")
                        : (false, "trendyctl sync ended (exit \(status)) before its kill at \(milliseconds) ms"))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Starts live mode on the device's engine; each live round takes the device's sync lock.
    func startLive() async {
        let lock = lock
        await engine.startLive(roundGate: { await lock.lease() })
    }

    /// A full resync under the device's sync lock.
    ///
    /// On a live device its second process resyncs, beside the live stream: that bootstrap can move the stored
    /// cursor back under the stream, which must then reopen from it (R12).
    func fullResync() async -> SyncReport {
        let engine = isLive ? twinEngine : engine
        return await lock.withLock { await engine.forceFullResync() }
    }

    /// A device that talks to `server` directly.
    init(name: String, directory: URL, server: ProofServer, clock: ManualClock) throws {
        try self.init(name: name, directory: directory, root: server.root, token: server.token, clock: clock)
    }

    /// Every entity this device holds, by id.
    func entities() throws -> Entities {
        var entities = Entities()
        for type in try events.eventTypes() { entities.types[type.id] = type }
        // Every definition, orphans included: a definition whose type this device does not hold (held back behind a
        // dead letter, say) is still data to compare.
        for definition in try stores.saved({ try $0.fetchAllPropertyDefinitions() }) {
            entities.definitions[definition.id] = definition
        }
        for event in try events.events() { entities.events[event.id] = event }
        for fence in try events.geofences() { entities.geofences[fence.id] = fence }
        return entities
    }
}
