import Foundation
import Hummingbird
import Logging
import Models
import NIOCore
import Protocols

/// The Trendy API v1 reference server (spec/api-v1.md with the fixes of §12.2, or the original's quirks).
public final class TrendyServer: Sendable {
    public let configuration: ServerConfiguration
    let storage: any ServerStorage
    let pipeline: Pipeline
    let logger: Logger

    /// Validates the configuration and opens (and migrates) the database.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "trendy-server")) async throws {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        switch configuration.storage {
        case .file(let path): storage = try SQLiteStorage(path: path)
        case .inMemory: storage = try SQLiteStorage(path: nil)
        case .postgres(let location): storage = try await PostgresStorage(location, logger: logger)
        }
        pipeline = Pipeline(configuration: configuration, storage: storage, logger: logger)
    }

    /// Serves until the task is cancelled or, with `handleSignals`, until SIGINT/SIGTERM; in-flight requests
    /// finish, then the database is closed. `onListening` receives the root URL once the socket is bound.
    public func run(
        handleSignals: Bool = false, onListening: @escaping @Sendable (String) -> Void = { _ in }
    )
        async throws
    {
        let router = Routes.router(
            pipeline: pipeline, middleware: APIMiddleware(quirks: configuration.quirks, logger: logger))
        let host = configuration.host
        let app = Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)))),
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                onListening("http://\(host):\(channel.localAddress?.port ?? 0)")
            },
            logger: logger)
        let maintenance = Task { [weak self] in
            while !Task.isCancelled {
                try? await self?.runMaintenance()
                try? await Task.sleep(nanoseconds: 600 * 1_000_000_000)
            }
        }
        defer { maintenance.cancel() }
        if handleSignals {
            try await app.runService()  // graceful shutdown on SIGTERM and SIGINT
        } else {
            try await app.run()
        }
        try await storage.close()
    }

    /// Prunes the change log past its retention and expired idempotency records. Runs every 10 minutes while
    /// serving; tests call it after moving their clock.
    public func runMaintenance() async throws {
        let now = configuration.clock.now().millisecondsSince1970
        let retention = configuration.changelogRetentionDays
        try await storage.write(user: nil) { db in
            if let retention { try ChangeFeed.prune(olderThan: retention, now: now, db) }
            try IdempotencyGuard.pruneExpired(now: now, db)
        }
    }
}
