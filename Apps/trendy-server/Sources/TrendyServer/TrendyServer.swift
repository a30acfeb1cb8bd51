import Foundation
import Hummingbird
import Logging
import Models
import NIOCore
import Protocols
import ServiceLifecycle
import UnixSignals

/// The Trendy API v1 reference server (spec/api-v1.md with the fixes of api-v1 §12.2, or the original's quirks).
public final class TrendyServer: Sendable {
    public let configuration: ServerConfiguration
    let storage: any ServerStorage
    let pipeline: Pipeline
    /// What `GET /metrics` reports.
    public let metrics = ServerMetrics()
    /// The history the database serves, announced on every answer (api-v1 §15); fixed while the process runs.
    public let history: ServerHistory
    let logger: Logger

    /// Validates the configuration and opens (and migrates) the database.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "trendy-server")) async throws {
        try configuration.validate()
        let staticTokens = try configuration.allStaticTokens()
        if staticTokens.isEmpty && configuration.jwtSecret == nil { throw ConfigurationError.noTokenSource }
        self.configuration = configuration
        self.logger = logger
        switch configuration.storage {
        case .file(let path): storage = try SQLiteStorage(path: path)
        case .inMemory: storage = try SQLiteStorage(path: nil)
        case .postgres(let location): storage = try await PostgresStorage(location, logger: logger)
        }
        let now = configuration.clock.now().millisecondsSince1970
        history = try await storage.write(user: nil) { db in try ServerHistories.serve(db, now: now) }
        if let backup = history.backupTakenAt {
            logger.notice(
                "serving a database restored from a backup",
                metadata: ["history": "\(history.id)", "backup-taken-at": "\(RFC3339.string(from: backup))"])
        }
        pipeline = Pipeline(
            configuration: configuration, staticTokens: staticTokens, storage: storage, metrics: metrics, logger: logger
        )
        try await pipeline.devices.refreshRevoked()
    }

    /// Reads the tokens file again (SIGHUP): later requests authenticate against its tokens and those of the
    /// flags, and an open change stream whose token is gone ends with `event: reauth`. A file that cannot be read
    /// or parsed changes nothing; the error says why.
    public func reloadTokens() throws(ConfigurationError) {
        let tokens = try configuration.allStaticTokens()
        pipeline.authenticator.replaceStaticTokens(tokens)
        // Open streams check their tokens at once: a token removed from the file stops streaming (api-v1 §13).
        pipeline.streams.credentialsChanged()
        logger.notice("tokens reloaded", metadata: ["tokens": "\(tokens.count)"])
    }

    /// Serves until the task is cancelled or, with `handleSignals`, until SIGINT/SIGTERM; in-flight requests
    /// finish, then the database is closed. `onListening` receives the root URL once the socket is bound.
    public func run(
        handleSignals: Bool = false, onListening: @escaping @Sendable (String) -> Void = { _ in }
    )
        async throws
    {
        let app = buildApplication(reloadsTokensOnHangUp: handleSignals, onListening: onListening)
        if handleSignals {
            try await app.runService()  // graceful shutdown on SIGTERM and SIGINT
        } else {
            try await app.run()
        }
    }

    /// This server as a Hummingbird application: the API router behind its middleware, the maintenance loop and
    /// the database's lifetime as services of the application's `ServiceGroup`. Tests drive it with
    /// HummingbirdTesting (`app.test(.router)`); an embedder runs it, or adds it to its own `ServiceGroup`.
    public func buildApplication(
        reloadsTokensOnHangUp: Bool = false, onListening: @escaping @Sendable (String) -> Void = { _ in }
    )
        -> some ApplicationProtocol
    {
        let host = configuration.host
        let connections = pipeline.connections
        let headTimeout = TimeAmount.seconds(Int64(configuration.idleTimeoutSeconds))
        let bodyTimeout = TimeAmount.seconds(Int64(configuration.bodyTimeoutSeconds))
        var services: [any Service] = [
            StorageLifetime(storage: storage), Maintenance(server: self),
            CommitWatch(
                streams: pipeline.streams, devices: pipeline.devices, storage: storage,
                hearsNotifications: configuration.testHooks.hearsCommitNotifications),
        ]
        if reloadsTokensOnHangUp { services.append(TokenReload(server: self)) }
        return Application(
            router: Routes.router(
                pipeline: pipeline,
                middleware: APIMiddleware(dialect: Dialect(configuration.quirks), history: history, logger: logger),
                metrics: metrics),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ConnectionGuard(limits: connections, headTimeout: headTimeout, bodyTimeout: bodyTimeout)
                    ],
                    idleTimeout: headTimeout)),
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: nil),
            // Shut down in reverse order, after the HTTP server: maintenance stops, then the database closes.
            services: services,
            onServerRunning: { channel in
                onListening("http://\(host):\(channel.localAddress?.port ?? 0)")
            },
            logger: logger)
    }

    /// Wakes every change stream for its keep-alive and token-expiry checks, as `CommitWatch` does each second;
    /// tests call it after moving their clock.
    public func tickStreams() { pipeline.streams.tick() }

    /// Change streams open now.
    public var openStreamCount: Int { pipeline.streams.count }

    /// Connections open now, and of them those that have not yet made an authenticated request.
    public var connectionCounts: (open: Int, unauthenticated: Int) { pipeline.connections.counts }

    /// Prunes the change log past its retention and expired idempotency records, and compacts the log
    /// (`--changelog-compact-days`, api-v1 §6.8). Runs every 10 minutes while serving (`Maintenance`); tests call it
    /// after moving their clock.
    public func runMaintenance() async throws {
        let now = configuration.clock.now().millisecondsSince1970
        let retention = configuration.changelogRetentionDays
        try await storage.write(user: nil) { db in
            if let retention { try ChangeFeed.prune(olderThan: retention, now: now, db) }
            try IdempotencyGuard.pruneExpired(now: now, db)
        }
        if let days = configuration.changelogCompactDays {
            _ = try await compactChangeLog(writtenBefore: now - Int64(days) * 86_400_000)
        }
    }

    /// The time since which a device seen holds back compaction (`--device-expiry-days`, api-v1 §16).
    var devicesSeenSince: Int64 {
        configuration.clock.now().millisecondsSince1970 - Int64(configuration.deviceExpiryDays) * 86_400_000
    }

    /// Compacts the change log below the changes written before `cutoff` (milliseconds since 1970, api-v1 §6.8),
    /// online, keeping the changes at the positions of the devices not expired; logs and counts what it removed.
    public func compactChangeLog(writtenBefore cutoff: Int64) async throws -> ChangeLogCompaction {
        let report = try await ChangeCompaction.compact(
            writtenBefore: cutoff, devicesSeenSince: devicesSeenSince, storage)
        metrics.compacted(report)
        if report.removed > 0 {
            logger.notice(
                "compacted the change log",
                metadata: [
                    "users": "\(report.users)", "removed": "\(report.removed)",
                    "longest-write-ms": "\(String(format: "%.1f", report.longestWriteMilliseconds))",
                ])
        }
        return report
    }
}

/// Opens the database the configuration names and builds the application around it (see
/// `TrendyServer.buildApplication`).
public func buildApplication(
    configuration: ServerConfiguration, logger: Logger = Logger(label: "trendy-server"),
    onListening: @escaping @Sendable (String) -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try await TrendyServer(configuration: configuration, logger: logger).buildApplication(onListening: onListening)
}

/// The retention loop: prunes every 10 minutes until the application shuts down.
struct Maintenance: Service {
    let server: TrendyServer

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await server.runMaintenance()
                try await Task.sleep(for: .seconds(600))
            }
        }
    }
}

/// SIGHUP reloads the tokens file (`TrendyServer.reloadTokens`) instead of ending the process, as daemons do; a
/// file that does not parse is logged and the tokens in use stay.
struct TokenReload: Service {
    let server: TrendyServer

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                try server.reloadTokens()
            } catch {
                server.logger.error("tokens not reloaded: \(error); the tokens in use stay")
            }
        }
    }
}

/// Holds the database open while the application serves and closes it once the HTTP server has stopped.
struct StorageLifetime: Service {
    let storage: any ServerStorage

    func run() async throws {
        try? await gracefulShutdown()
        try await storage.close()
    }
}

extension TrendyServer {
    /// Opens the database `storage` names (migrating it when needed), compacts its change log below the changes
    /// written before `cutoff` (milliseconds since 1970, api-v1 §6.8), keeping the changes at the positions of the
    /// devices seen since `devicesSeenSince`, and closes it: `trendy-server compact`, which may run beside the
    /// servers that serve the database.
    public static func compactChangeLog(
        in storage: ServerConfiguration.Storage, writtenBefore cutoff: Int64, devicesSeenSince: Int64,
        logger: Logger = Logger(label: "trendy-server")
    ) async throws -> ChangeLogCompaction {
        let opened: any ServerStorage =
            switch storage {
            case .file(let path): try SQLiteStorage(path: path)
            case .inMemory: try SQLiteStorage(path: nil)
            case .postgres(let location): try await PostgresStorage(location, logger: logger)
            }
        do {
            let report = try await ChangeCompaction.compact(
                writtenBefore: cutoff, devicesSeenSince: devicesSeenSince, opened)
            try await opened.close()
            return report
        } catch {
            try? await opened.close()
            throw error
        }
    }
}
