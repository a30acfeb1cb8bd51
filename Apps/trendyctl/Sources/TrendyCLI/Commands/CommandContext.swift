import ArgumentParser
import Foundation
import Models
import Protocols
import Sync

/// What a command runs with: its console, the resolved settings, and the object graph on demand.
struct CommandContext {
    let console: Console
    let settings: Settings
    /// Whether the server refused this device as revoked (api-v1 §16), once a command that talks to it has run.
    var deviceWasRevoked: @Sendable () -> Bool = { false }

    var now: Date { Date() }

    /// The graph over the database, with the server when one is configured. Building it opens (and creates) the
    /// database; it never touches the network.
    /// `livePollInterval` sets live mode's polling interval (R12) for `sync --watch`.
    func container(livePollInterval: TimeInterval? = nil) throws -> TrendyContainer {
        let token = try settings.token()
        var configuration = TrendyConfiguration.production(
            database: settings.databasePath, server: settings.server?.root,
            tokenProvider: StaticTokenProvider(token), standardProfile: settings.usesStandardProfile)
        if let livePollInterval { configuration.sync.live.pollInterval = livePollInterval }
        configuration.networkLogger = DiagnosticLog.logger("trendy.networking", verbosity: console.verbosity)
        configuration.engineLogger = DiagnosticLog.logger("trendy.sync", verbosity: console.verbosity)
        return try TrendyContainer.make(configuration)
    }

    /// The graph without a server, for the commands that read the engine's own state (status, queue, history):
    /// no `APIClient` is built.
    func offlineContainer() throws -> TrendyContainer {
        try TrendyContainer.make(
            .production(
                database: settings.databasePath, server: nil, tokenProvider: StaticTokenProvider(nil),
                standardProfile: settings.usesStandardProfile))
    }

    /// The local store, for the commands that only read and write local data: no engine, no network client.
    func store() throws -> EventStore { try TrendyContainer.localStore(.file(path: settings.databasePath)) }
}

/// A trendyctl subcommand: global options, and a body that gets a context. Errors become a message on stderr
/// (`{"error": …}` with `--json`) and the exit code of spec/trendyctl.md §1.5.
protocol TrendyCommand: AsyncParsableCommand {
    var globals: GlobalOptions { get }
    func run(_ context: CommandContext) async throws
    /// Whether the command runs although the config file has unknown keys or bad values: the commands that
    /// repair it (`config …`, `login`, `logout`) do; every other refuses, naming the file and line.
    static var runsWithConfigProblems: Bool { get }
}

extension TrendyCommand {
    static var runsWithConfigProblems: Bool { false }
}

extension TrendyCommand {
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let verbosity: Console.Verbosity = globals.quiet ? .quiet : globals.verbose ? .verbose : .normal
        let console = Console(
            json: globals.json, verbosity: verbosity, color: globals.colorOutput, wide: globals.wide,
            environment: environment)
        do {
            let settings = try Settings(globals, environment: environment)
            if !Self.runsWithConfigProblems, let problem = settings.configProblems.first {
                throw CLIError.failure(problem, code: "config")
            }
            let context = CommandContext(console: console, settings: settings)
            try await run(context)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let failure = CLIError.from(error)
            console.error(failure)
            throw ExitCode(failure.exitCode)
        }
    }
}
