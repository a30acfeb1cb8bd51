import ArgumentParser
import Foundation
import Logging
import Models
import TrendyServer

/// `trendy-server`: the command line of spec/trendyctl.md §2. Serving is the default; the other subcommands keep
/// the SQLite file (backups and restores, api-v1 §15).
struct TrendyServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trendy-server",
        abstract: "The Trendy API v1 reference server: end-to-end test peer, development backend, self-hostable.",
        discussion: """
            Without a subcommand, serves (trendy-server serve --help lists its options).
            See docs/server.md and docs/security.md.
            """,
        version: "trendy-server \(TrendyRelease.version)",
        subcommands: [
            ServeCommand.self, BackupCommand.self, RestoreCommand.self, MarkRestoredCommand.self, CompactCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)
}

/// `trendy-server [serve]`: serves the API until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the API (the default).",
        discussion: """
            Examples:
              trendy-server --dev --in-memory --port 0
              trendy-server --db ~/trendy/server.sqlite --tokens-file tokens.txt
              trendy-server --postgres postgres://trendy@127.0.0.1:5432/trendy --dev
              trendy-server --in-memory --dev --fault-429 0.2 --fault-seed 7

            When it is ready the server prints one line, "trendy-server listening on
            http://HOST:PORT"; logs go to stderr. SIGINT or SIGTERM stop it gracefully;
            SIGHUP reloads --tokens-file. See docs/server.md and docs/security.md.
            """)

    @Option(parsing: .unconditional, help: "Address to bind.") var host = "127.0.0.1"
    @Option(parsing: .unconditional, help: "Port to bind; 0 picks a free one.") var port = 8080
    @Option(parsing: .unconditional, help: "SQLite database file (default: $XDG_DATA_HOME/trendy/server.sqlite).")
    var db: String?
    @Flag(help: "Keep everything in memory; nothing remains after exit.") var inMemory = false
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "PostgreSQL database shared by several instances: postgres://USER:PASSWORD@HOST:PORT/DATABASE.",
            discussion: "Also read from TRENDY_DATABASE_URL."))
    var postgres: String?
    @Option(parsing: .unconditionalSingleValue, help: "A static token and its user, TOKEN:USER_ID (repeatable).")
    var token: [String] = []
    @Option(parsing: .unconditional, help: "File with one TOKEN:USER_ID per line.") var tokensFile: String?
    @Option(parsing: .unconditional, help: "File holding the HS256 secret for JWT bearer tokens.") var jwtSecretFile:
        String?
    @Flag(help: "Add the token dev-token for a fixed development user.") var dev = false
    @Option(parsing: .unconditional, help: "Requests per minute per user (off by default).") var rateLimit: Int?
    @Option(
        parsing: .unconditional,
        help: "Failed authentications a minute per client address; beyond them, 429 (valid tokens still pass).")
    var authFailuresPerMinute = 60
    @Option(name: .customLong("fault-500"), parsing: .unconditional, help: "Probability of an injected 500.")
    var fault500 = 0.0
    @Option(name: .customLong("fault-429"), parsing: .unconditional, help: "Probability of an injected 429.")
    var fault429 = 0.0
    @Option(parsing: .unconditional, help: "Retry-After seconds of an injected 429.") var faultRetryAfter = 1
    @Option(parsing: .unconditional, help: "Probability that a write completes but its answer is dropped.")
    var faultDrop = 0.0
    @Option(parsing: .unconditional, help: "Milliseconds of injected delay.") var faultDelayMs = 0
    @Option(parsing: .unconditional, help: "Probability of the injected delay.") var faultDelay = 1.0
    @Option(
        parsing: .unconditional, help: "Probability that a change stream is cut in the middle of a batch of entries.")
    var faultStreamCut = 0.0
    @Option(parsing: .unconditional, help: "Seed of the fault generator, for repeatable runs.") var faultSeed: UInt64?
    @Option(
        name: .customLong("fault-500-path"), parsing: .unconditional,
        help: "Answer 500 to every request whose path ends with this.")
    var fault500Path: String?
    @Option(parsing: .unconditional, help: "Imitate a backend's defects: 'original'.") var quirks: String?
    @Option(parsing: .unconditional, help: "Delete change-feed rows older than this many days.")
    var changelogRetentionDays: Int?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Keep only the newest change of each entity among the changes older than this many days.",
            discussion: "Devices resume from any cursor with an incremental pull (docs/server.md, \"Compaction\")."))
    var changelogCompactDays: Int?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Days after its last request a device no longer holds back compaction.",
            discussion: "An expired device resumes with a bootstrap and keeps its queue (docs/server.md, \"Devices\").")
    )
    var deviceExpiryDays = ServerConfiguration.defaultDeviceExpiryDays
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Devices one user keeps, revoked ones aside; a new one beyond them forgets the least recently seen.",
            discussion: "A forgotten device that returns is recorded anew (docs/server.md, \"Devices\")."))
    var maxDevicesPerUser = ServerConfiguration.defaultMaxDevicesPerUser
    @Option(parsing: .unconditional, help: "Seconds before a connection without a request in progress is closed.")
    var idleTimeout = 60
    @Option(
        parsing: .unconditional,
        help: "Seconds from a request's head to the end of its body; beyond it, 408 and the connection closes.")
    var bodyTimeout = 60
    @Option(
        parsing: .unconditional,
        help: "Connections held at once; beyond it, /health is still answered, anything else 503.")
    var maxConnections = 16_384
    @Option(
        parsing: .unconditional,
        help: "Connections that have not made an authenticated request yet; beyond it, as --max-connections.")
    var maxUnauthenticatedConnections = 1024
    @Option(parsing: .unconditional, help: "Change streams the server holds at once; beyond it, 503.") var maxStreams =
        10_000
    @Option(parsing: .unconditional, help: "Change streams one user holds at once; beyond it, 429 stream_limit.")
    var maxStreamsPerUser = 16
    @Option(
        parsing: .unconditional, help: "Seconds without an event before a change stream sends a keep-alive comment.")
    var streamKeepalive = 15
    @Option(parsing: .unconditional, help: "trace, debug, info, notice, warning, error or critical.") var logLevel =
        "info"
    @Option(
        parsing: .unconditional, help: "text (one line a record) or json (one JSON object a line, for log collectors).")
    var logFormat = "text"

    func validate() throws {
        if [db != nil, inMemory, postgresURL != nil].filter({ $0 }).count > 1 {
            throw ValidationError("choose one storage: --db FILE, --in-memory or --postgres URL")
        }
        if let quirks, quirks != "original" { throw ValidationError("--quirks accepts only 'original'") }
        if !["text", "json"].contains(logFormat) { throw ValidationError("--log-format must be text or json") }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError(
                "--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            if json {
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let configuration = try makeConfiguration()
        if dev {
            FileHandle.standardError.write(
                Data(
                    "development token: \(ServerConfiguration.developmentToken) (user \(ServerConfiguration.developmentUserId))\n"
                        .utf8))
        }
        let server: TrendyServer
        do {
            // A database too new, unopenable or not there, or a restore replacing the file: `ExitStatus`.
            server = try await ExitStatus.reporting { try await TrendyServer(configuration: configuration) }
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        try await server.run(handleSignals: true) { url in
            // One line, written and flushed at once: scripts wait for it.
            FileHandle.standardOutput.write(Data("trendy-server listening on \(url)\n".utf8))
        }
    }

    func makeConfiguration() throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.storage = inMemory ? .inMemory : .file(path: db ?? Self.defaultDatabasePath)
        do throws(ConfigurationError) {
            if let postgresURL { configuration.storage = .postgres(try PostgresLocation(url: postgresURL)) }
            for (index, pair) in token.enumerated() {
                try configuration.addToken(pair, source: "--token number \(index + 1)")
            }
        } catch {
            throw ValidationError(error.description)
        }
        configuration.tokensFile = tokensFile
        if let jwtSecretFile {
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: jwtSecretFile))
            } catch {
                throw ValidationError("cannot read --jwt-secret-file \(jwtSecretFile): \(error.localizedDescription)")
            }
            configuration.jwtSecret = ServerConfiguration.jwtSecret(fromFileContents: Array(bytes))
        }
        if dev { configuration.enableDevelopmentToken() }
        configuration.rateLimitPerMinute = rateLimit
        configuration.authFailuresPerMinute = authFailuresPerMinute
        configuration.faults.probability500 = fault500
        configuration.faults.probability429 = fault429
        configuration.faults.retryAfterSeconds = faultRetryAfter
        configuration.faults.probabilityDrop = faultDrop
        configuration.faults.delayMilliseconds = faultDelayMs
        configuration.faults.probabilityDelay = faultDelay
        configuration.faults.probabilityStreamCut = faultStreamCut
        configuration.faults.seed = faultSeed
        configuration.faults.failingPathSuffix = fault500Path
        configuration.quirks = quirks == "original" ? .original : .none
        configuration.changelogRetentionDays = changelogRetentionDays
        configuration.changelogCompactDays = changelogCompactDays
        configuration.deviceExpiryDays = deviceExpiryDays
        configuration.maxDevicesPerUser = maxDevicesPerUser
        configuration.idleTimeoutSeconds = idleTimeout
        configuration.bodyTimeoutSeconds = bodyTimeout
        configuration.maxConnections = maxConnections
        configuration.maxUnauthenticatedConnections = maxUnauthenticatedConnections
        configuration.maxStreams = maxStreams
        configuration.maxStreamsPerUser = maxStreamsPerUser
        configuration.streamKeepaliveSeconds = streamKeepalive
        do {
            try configuration.validate()
        } catch {
            throw ValidationError(error.description)
        }
        return configuration
    }

    /// `--postgres`, else `TRENDY_DATABASE_URL` unless another storage flag is given.
    var postgresURL: String? {
        if let postgres { return postgres }
        guard db == nil, !inMemory else { return nil }
        return ProcessInfo.processInfo.environment["TRENDY_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var defaultDatabasePath: String {
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() + "/.local/share")
        return data + "/trendy/server.sqlite"
    }
}
