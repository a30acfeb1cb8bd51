import Foundation
import Hashing
import Logging
import Models
import Networking
import Persistence
import Protocols
import Sync

/// What the object graph is built from (the factory style of seeds 003–004): where the data lives and which server,
/// if any, it syncs with.
public struct TrendyConfiguration: Sendable {
    public enum Storage: Sendable {
        /// A SQLite file in WAL mode, created with its folder on first use.
        case file(path: String)
        /// A private in-memory database.
        case inMemory
    }

    public enum Remote: Sendable {
        /// A Trendy API v1 server over HTTP.
        case server(ServerRoot, tokenProvider: any TokenProvider)
        /// Any client: tests pass TestSupport's `MockNetworkClient`, so the shipped binary links no test code.
        case custom(any NetworkClientProtocol)
        /// No server: local commands work, a sync cannot start.
        case none
    }

    public var storage: Storage
    public var remote: Remote
    public var sync: SyncConfiguration
    public var clock: any SyncClock
    /// Where `APIClient` logs each request (debug level) and its rate-limit waits (notice); trendyctl prints them on
    /// stderr by its verbosity.
    public var networkLogger = Logger(label: "trendy.networking")
    /// Where the engine logs what it works around (a refresh that failed, a read-back owed).
    public var engineLogger = Logger(label: "trendy.sync")
    /// The client this device says it runs, `name/version` (`Trendy-Device`, api-v1 §16).
    public var client = "trendyctl/\(TrendyRelease.version)"

    public init(storage: Storage, remote: Remote, sync: SyncConfiguration, clock: any SyncClock = SystemClock()) {
        self.storage = storage
        self.remote = remote
        self.sync = sync
        self.clock = clock
    }

    /// The production graph: a SQLite file and `APIClient`, trendyctl's throughput profile unless told otherwise.
    public static func production(
        database path: String, server: ServerRoot?, tokenProvider: any TokenProvider,
        standardProfile: Bool = false
    ) -> TrendyConfiguration {
        let sync: SyncConfiguration =
            standardProfile ? .standard(serverRoot: server) : .throughput(serverRoot: server)
        return TrendyConfiguration(
            storage: .file(path: path),
            remote: server.map { .server($0, tokenProvider: tokenProvider) } ?? .none, sync: sync)
    }
}

/// The composition root: the one place that names concrete types. Everything else receives protocols, the
/// engine and the `EventStore`.
public struct TrendyContainer: Sendable {
    public let configuration: TrendyConfiguration
    public let engine: SyncEngine
    public let events: EventStore
    public let networkClient: any NetworkClientProtocol
    /// The opened database, which also holds this device's identity (api-v1 §16).
    public let storage: DatabaseStorage

    public static func make(_ configuration: TrendyConfiguration) throws -> TrendyContainer {
        let stores = try dataStores(configuration.storage, clock: configuration.clock)
        let client: any NetworkClientProtocol
        switch configuration.remote {
        case .server(let root, let tokens):
            let device = DeviceHeader(id: try stores.storage.deviceIdentity().id, client: configuration.client)
            client = APIClient(
                configuration: try APIClient.Configuration(serverRoot: root, device: device), tokenProvider: tokens,
                clock: configuration.clock, logger: configuration.networkLogger)
        case .custom(let custom):
            client = custom
        case .none:
            client = NoServerClient()
        }
        let engine = SyncEngine(
            networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(), clock: configuration.clock,
            configuration: configuration.sync, logger: configuration.engineLogger)
        return TrendyContainer(
            configuration: configuration, engine: engine,
            events: EventStore(engine: engine, dataStoreFactory: stores, clock: configuration.clock),
            networkClient: client, storage: stores.storage)
    }

    /// The HTTP client, when the graph talks to a Trendy server: for what is not an engine requirement (api-v1 §16).
    public var apiClient: APIClient? { networkClient as? APIClient }

    /// This database's device id, lowercased, as `Trendy-Device` sends it (api-v1 §16).
    public func deviceId() throws -> String { try storage.deviceIdentity().id.uuidString.lowercased() }

    /// Whether the server refused this device as revoked (api-v1 §16); the database then remembers it, so that the
    /// next `trendyctl login` signs in as a new device.
    public func deviceWasRevoked() -> Bool {
        guard let apiClient, apiClient.deviceRevoked else { return false }
        try? storage.markDeviceRevoked(at: configuration.clock.now())
        return true
    }

    /// `trendyctl login`: a database whose device was revoked gets a new device id, keeping its data and queue
    /// (api-v1 §16). Returns the new id, or nil when there is no database yet or its device was not revoked.
    public static func renewRevokedDevice(databaseAt path: String) throws -> UUID? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try DatabaseStorage.open(.file(path: path)).renewDeviceIdentityIfRevoked()
    }

    /// The local data alone, for commands that never sync: no engine and no network client are built, and a write
    /// is one transaction.
    public static func localStore(
        _ storage: TrendyConfiguration.Storage, clock: any SyncClock = SystemClock()
    ) throws
        -> EventStore
    {
        EventStore(dataStoreFactory: try dataStores(storage, clock: clock), clock: clock)
    }

    private static func dataStores(
        _ storage: TrendyConfiguration.Storage, clock: any SyncClock
    ) throws
        -> DefaultDataStoreFactory
    {
        switch storage {
        case .file(let path): try DefaultDataStoreFactory(.file(path: path), clock: clock)
        case .inMemory: try DefaultDataStoreFactory(.inMemory, clock: clock)
        }
    }

    /// Whether a sync can reach a server.
    public var hasServer: Bool {
        if case .none = configuration.remote { return false }
        return true
    }
}
