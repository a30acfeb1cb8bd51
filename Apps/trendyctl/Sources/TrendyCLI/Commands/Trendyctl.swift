import ArgumentParser
import Foundation
import Models

/// The root command. Its help leads with examples; every subcommand takes the global options anywhere.
struct Trendyctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trendyctl",
        abstract: "Log events offline and sync them with a Trendy server.",
        discussion: """
            Examples:
              trendyctl types add Coffee --color "#8B4513"
              trendyctl events add Coffee --notes "flat white"
              trendyctl events list --since 2026-11-01
              trendyctl login --server http://127.0.0.1:8080 --with-token < token.txt
              trendyctl sync
              trendyctl status --json

            Everything but `sync` works offline on the local database. Settings come from flags, then TRENDY_* \
            environment variables, then the config file, then defaults.

            Completions: trendyctl --generate-completion-script bash|zsh|fish
            """,
        version: "trendyctl \(TrendyRelease.version)",
        subcommands: [
            TypesCommand.self, EventsCommand.self, GeofencesCommand.self, PropsCommand.self, ExportCommand.self,
            ImportCommand.self, SyncCommand.self, StatusCommand.self, QueueCommand.self, HistoryCommand.self,
            DevicesCommand.self, ConfigCommand.self, LoginCommand.self, LogoutCommand.self,
        ])

    @OptionGroup var globals: GlobalOptions
}

/// The entry point: parses, runs, and maps every failure to a message and an exit code (spec/trendyctl.md §1.5).
public enum TrendyctlMain {
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        do {
            var command = try Trendyctl.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(0)
        } catch {
            let code = Trendyctl.exitCode(for: error)
            // Help, version and completion scripts are "errors" with code 0: print them as the parser does.
            if code != .success, arguments.contains("--json"), !(error is ExitCode) {
                let body: JSONValue = [
                    "error": ["code": "usage", "message": .string(Trendyctl.message(for: error))]
                ]
                FileHandle.standardError.write(Data((JSONText.string(body) + "\n").utf8))
                exit(code.rawValue)
            }
            Trendyctl.exit(withError: error)
        }
    }
}
