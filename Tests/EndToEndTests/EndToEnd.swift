import Foundation
import Hashing
import Models
import Networking
import Persistence
import Protocols
import Sync
import Synchronization
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// A trendy-server in this process on 127.0.0.1, backed by a SQLite file, and client devices of one user, each a
/// `SyncEngine` on its own SQLite file: every layer real, only time is manual.
///
/// The server can be stopped and started again on the same file and port, like a server going away and coming
/// back. Every `/api/v1` request the server receives is recorded.
final class EndToEnd: Sendable {
    let directory: URL
    let user: String
    /// Shared by the devices. `.advancing`: a wait inside the client (429 retries) passes instantly. Ids come from
    /// the process-wide generator, which never goes back: a test may move this clock at most a few seconds ahead of
    /// real time, or every later test's ids would look to the server as if they came from the future.
    let clock = ManualClock(now: Date(millisecondsSince1970: Date().millisecondsSince1970), mode: .advancing)
    private let configuration: ServerConfiguration
    private let running = Mutex<LiveTrendyServer?>(nil)
    let root: ServerRoot
    private let log: RequestLog

    final class RequestLog: Sendable {
        let requests = Mutex<[ServerConfiguration.ObservedRequest]>([])

        func record(into configuration: inout ServerConfiguration) {
            configuration.testHooks.observeRequest = { request in self.requests.withLock { $0.append(request) } }
        }
    }

    private init(directory: URL, configuration: ServerConfiguration, server: LiveTrendyServer, log: RequestLog) {
        self.directory = directory
        self.configuration = configuration
        self.root = server.root
        self.log = log
        self.user = UUID().uuidString.lowercased()
        running.withLock { $0 = server }
    }

    /// Runs `body` with a fresh server started with `configuration` (its storage becomes a file of this run) and
    /// removes everything afterwards.
    static func with(
        _ configuration: ServerConfiguration = LiveTrendyServer.testConfiguration(),
        _ body: (EndToEnd) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trendy-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = RequestLog()
        var configuration = configuration
        configuration.storage = .file(path: directory.appendingPathComponent("server.sqlite").path)
        log.record(into: &configuration)
        let server = try await LiveTrendyServer.start(configuration)
        configuration.port = server.root.url.port ?? 0  // a restart comes back where the clients look
        let world = EndToEnd(directory: directory, configuration: configuration, server: server, log: log)
        do {
            try await body(world)
        } catch {
            await world.stopServer()
            throw error
        }
        await world.stopServer()
    }

    // MARK: The server

    /// Stops the server; requests fail with a transport error until `startServer()`.
    func stopServer() async {
        let server = running.withLock { server -> LiveTrendyServer? in
            defer { server = nil }
            return server
        }
        await server?.stop()
    }

    /// Starts the server again on the same database file and port, optionally with other settings.
    func startServer(_ change: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        var configuration = configuration
        change(&configuration)
        log.record(into: &configuration)
        let server = try await LiveTrendyServer.start(configuration)
        running.withLock { $0 = server }
    }

    /// Compacts the running server's change log below the changes written before `cutoff` (api-v1 §6.8).
    func compactServerLog(writtenBefore cutoff: Date) async throws -> ChangeLogCompaction {
        let server = try #require(running.withLock { $0 })
        return try await server.server.compactChangeLog(writtenBefore: cutoff.millisecondsSince1970)
    }

    /// Every request received so far, in arrival order.
    var requests: [ServerConfiguration.ObservedRequest] { log.requests.withLock { $0 } }

    // MARK: Devices

    /// Devices `a` and `b`, both synced after `a` created a type named `typeName` and one event of it.
    func twoDevicesSharingAnEvent(
        _ typeName: String
    ) async throws -> (a: Device, b: Device, event: Event) {
        let a = try device("a")
        let b = try device("b")
        let type = try await a.events.createEventType(name: typeName)
        let event = try await a.events.createEvent(eventTypeId: type.id, timestamp: Date(timeIntervalSince1970: 1e9))
        #expect(await a.sync().outcome.name == "synced")
        #expect(await b.sync().outcome.name == "synced")
        return (a, b, event)
    }

    /// A new device of the user with its own database file. `rateLimitRetries` is the client's own 429 retries.
    func device(
        _ name: String, configuration: SyncConfiguration? = nil, rateLimitRetries: Int = 3
    ) throws -> Device {
        // Long-lived: a test may move the server's clock by weeks.
        let token = BearerTokens.hs256(
            user: user, secret: LiveTrendyServer.testSecret, expiresAt: Date().addingTimeInterval(90 * 86_400))
        let storage = try DatabaseStorage.open(
            .file(path: directory.appendingPathComponent("\(name).sqlite").path), clock: clock)
        // The database's device, as trendyctl sends it (api-v1 §16).
        let device = DeviceHeader(id: try storage.deviceIdentity().id, client: "end-to-end/1")
        let client = APIClient(
            configuration: try APIClient.Configuration(
                serverRoot: root, maxRateLimitRetries: rateLimitRetries, device: device),
            tokenProvider: StaticTokenProvider(token),
            clock: clock)
        let stores = DefaultDataStoreFactory(storage: storage)
        let engine = SyncEngine(
            networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(), clock: clock,
            configuration: configuration ?? .standard(serverRoot: root))
        return Device(
            name: name, engine: engine, events: EventStore(engine: engine, dataStoreFactory: stores, clock: clock),
            client: client)
    }
}

/// One client: an engine and its EventStore on a SQLite file, talking HTTP to the server.
struct Device {
    let name: String
    let engine: SyncEngine
    let events: EventStore
    let client: APIClient

    func sync() async -> SyncReport { await engine.performSync() }

    /// Syncs until a round ends `synced`, at most `rounds` times; returns every report.
    func syncUntilSynced(rounds: Int = 30, between: () -> Void = {}) async -> [SyncReport] {
        var reports: [SyncReport] = []
        for _ in 0..<rounds {
            let report = await sync()
            reports.append(report)
            if report.outcome.name == "synced" { break }
            between()
        }
        return reports
    }

    /// Everything the user can see on this device, one line per entity, sorted: equal lines mean equal data.
    func contents() throws -> [String] {
        var lines: [String] = []
        for type in try events.eventTypes() {
            lines.append("type \(type.id) \(type.name) \(type.color) \(type.icon)")
            for definition in try events.propertyDefinitions(eventTypeId: type.id) {
                lines.append(
                    "definition \(definition.id) \(definition.eventTypeId) \(definition.key) \(definition.label) "
                        + "\(definition.propertyType.rawValue) \(definition.options) \(definition.displayOrder)")
            }
        }
        for event in try events.events() {
            let properties = event.properties.keys.sorted().map {
                "\($0)=\(event.properties[$0].map { "\($0)" } ?? "")"
            }
            lines.append(
                "event \(event.id) \(event.eventTypeId) \(RFC3339.string(from: event.timestamp)) "
                    + "\(event.notes ?? "-") \(event.geofenceId ?? "-") \(properties.joined(separator: ","))")
        }
        for fence in try events.geofences() {
            lines.append(
                "geofence \(fence.id) \(fence.name) \(fence.latitude) \(fence.longitude) \(fence.radius) "
                    + "\(fence.eventTypeEntryId ?? "-") \(fence.eventTypeExitId ?? "-")")
        }
        return lines.sorted()
    }
}
