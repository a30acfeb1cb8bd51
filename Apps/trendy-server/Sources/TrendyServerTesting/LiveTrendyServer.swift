import Foundation
import Logging
import Models
import TrendyServer

/// A trendy-server running inside the test process on 127.0.0.1 with a free port and an in-memory database.
///
/// JWT authentication is on with a fixed test secret, so a test can mint tokens for as many fresh users as it
/// needs (`token(for:)`). Always `stop()` it (or use `with`), which shuts the server down gracefully.
public final class LiveTrendyServer: Sendable {
    public static let testSecret = Array("trendy-test-secret-of-at-least-32-bytes".utf8)

    public let server: TrendyServer
    /// `http://127.0.0.1:<port>`.
    public let root: ServerRoot
    private let task: Task<Void, any Error>

    private init(server: TrendyServer, root: ServerRoot, task: Task<Void, any Error>) {
        self.server = server
        self.root = root
        self.task = task
    }

    /// The defaults of a test server: 127.0.0.1, a free port, in memory, JWTs signed with `testSecret`. Change any
    /// setting (faults, quirks, rate limit, clock, hooks) before starting.
    ///
    /// With `TRENDY_TEST_SERVER_STORAGE=postgres` the storage is instead a new schema of the PostgreSQL database
    /// `TRENDY_TEST_POSTGRES_URL` names (`scripts/with-postgres` starts one): the same tests, the other backend.
    public static func testConfiguration() -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.storage = testStorage
        configuration.jwtSecret = testSecret
        return configuration
    }

    /// In memory, or a fresh PostgreSQL schema (see `testConfiguration`).
    public static var testStorage: ServerConfiguration.Storage {
        guard ProcessInfo.processInfo.environment["TRENDY_TEST_SERVER_STORAGE"] == "postgres" else { return .inMemory }
        guard let storage = postgresTestStorage() else {
            // A misconfigured run must fail loudly, not pass on SQLite.
            fatalError("TRENDY_TEST_SERVER_STORAGE=postgres needs TRENDY_TEST_POSTGRES_URL=postgres://…")
        }
        return storage
    }

    /// A new, empty schema of the database `TRENDY_TEST_POSTGRES_URL` names; nil without one.
    public static func postgresTestStorage() -> ServerConfiguration.Storage? {
        guard let url = ProcessInfo.processInfo.environment["TRENDY_TEST_POSTGRES_URL"],
            var location = try? PostgresLocation(url: url)
        else { return nil }
        location.schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return .postgres(location)
    }

    /// `postgresTestStorage()` as a URL, for `trendy-server --postgres` child processes; the password stays out of
    /// `redacted`, which is for messages.
    public static func postgresTestURL() -> (url: String, redacted: String)? {
        guard case .postgres(let location)? = postgresTestStorage() else { return nil }
        return (location.url, location.redacted)
    }

    /// Why PostgreSQL tests cannot run here, for their skip message.
    public static var postgresUnavailableReason: String {
        ProcessInfo.processInfo.environment["TRENDY_TEST_POSTGRES_SKIPPED"]
            ?? "TRENDY_TEST_POSTGRES_URL is not set: run through scripts/with-postgres (make test-postgres)"
    }

    /// Only critical messages unless `TRENDY_TEST_SERVER_LOG` names a level (`info`, `debug`, …): test output
    /// stays readable, and a failing test can be rerun with the server's log.
    public static func testLogger(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel =
            ProcessInfo.processInfo.environment["TRENDY_TEST_SERVER_LOG"].flatMap(Logger.Level.init(rawValue:))
            ?? .critical
        return logger
    }

    public static func start(
        _ configuration: ServerConfiguration = testConfiguration()
    ) async throws
        -> LiveTrendyServer
    {
        let server = try await TrendyServer(configuration: configuration, logger: testLogger(label: "trendy-server"))
        let (urls, continuation) = AsyncStream<String>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            try await server.run { url in continuation.yield(url) }
        }
        for await url in urls {
            guard let root = ServerRoot(url) else { break }
            return LiveTrendyServer(server: server, root: root, task: task)
        }
        task.cancel()
        _ = try await task.value
        throw StartError.didNotListen
    }

    /// Starts a server, runs `body`, and stops the server whatever happens.
    @discardableResult
    public static func with<Result>(
        _ configuration: ServerConfiguration = testConfiguration(),
        _ body: (LiveTrendyServer) async throws -> Result
    ) async throws -> Result {
        try await stopping(try await start(configuration), after: body) { await $0.stop() }
    }

    /// Stops accepting, lets in-flight requests finish, closes the database. A server that has not stopped a minute
    /// after its cancellation is abandoned with a line on standard error (`BoundedWait`, docs/history/reliability.md).
    public func stop() async {
        task.cancel()
        if await BoundedWait.ended(task, within: Self.stopLimit) { return }
        FileHandle.standardError.write(
            Data(
                "LiveTrendyServer.stop: the server at \(root.text) (storage: \(Self.storageName)) had not stopped \(Self.stopLimit) after its cancellation; abandoned\n"
                    .utf8))
    }

    /// Far longer than any stop takes: a stop is a cancellation and a database close.
    static let stopLimit = Duration.seconds(60)

    private static var storageName: String {
        ProcessInfo.processInfo.environment["TRENDY_TEST_SERVER_STORAGE"] ?? "in-memory"
    }

    /// A bearer token for `user` (a new user is created by its first request).
    public func token(for user: String, expiresIn seconds: TimeInterval = 3600) -> String {
        BearerTokens.hs256(user: user, secret: Self.testSecret, expiresAt: Date().addingTimeInterval(seconds))
    }

    /// A fresh user id and its token.
    public func newUser() -> (id: String, token: String) {
        let id = UUID().uuidString.lowercased()
        return (id, token(for: id))
    }

    public enum StartError: Error {
        case didNotListen
    }
}

/// Runs `body` with `server`, then `stop`s the server, whether `body` returned or threw.
func stopping<Server, Result>(
    _ server: Server, after body: (Server) async throws -> Result, _ stop: (Server) async -> Void
) async throws -> Result {
    do {
        let result = try await body(server)
        await stop(server)
        return result
    } catch {
        await stop(server)
        throw error
    }
}
