import ArgumentParser
import Foundation
import Models

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Read and change the config file.",
        discussion: """
            Keys:
            \(ConfigFile.keys.map { "  \($0.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))

            Examples:
              trendyctl config set server http://127.0.0.1:8080
              trendyctl config get server
              trendyctl config list --json
            """,
        subcommands: [Get.self, Set.self, Unset.self, List.self])

    struct Get: TrendyCommand {
        static let runsWithConfigProblems = true
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Print a key's value; exit 1 when it is not set.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The key.") var key: String

        func run(_ context: CommandContext) async throws {
            _ = try ConfigFile.key(key)
            guard let value = context.settings.config[key] else {
                throw CLIError.failure("\(key) is not set in \(context.settings.configPath)", code: "not_set")
            }
            context.console.out(json: [key: .string(value)], orText: value)
        }
    }

    struct Set: TrendyCommand {
        static let runsWithConfigProblems = true
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set a key.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value.") var value: String

        func run(_ context: CommandContext) async throws {
            var config = context.settings.config
            try config.set(key, value)
            try config.save(to: context.settings.configPath)
            context.console.out(json: [key: .string(value)], orText: value)
            context.console.note("set \(key) in \(context.settings.configPath)")
        }
    }

    struct Unset: TrendyCommand {
        static let runsWithConfigProblems = true
        static let configuration = CommandConfiguration(commandName: "unset", abstract: "Remove a key.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The key.") var key: String

        func run(_ context: CommandContext) async throws {
            var config = context.settings.config
            try config.unset(key)
            try config.save(to: context.settings.configPath)
            if context.console.json { context.console.out(json: ["unset": .string(key)]) }
            context.console.note("unset \(key)")
        }
    }

    struct List: TrendyCommand {
        static let runsWithConfigProblems = true
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Print every key that is set.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: CommandContext) async throws {
            let values = context.settings.config.values
            if context.console.json {
                context.console.out(json: .object(values.mapValues(JSONValue.string)))
                return
            }
            for key in values.keys.sorted() { context.console.out("\(key)=\(values[key] ?? "")") }
        }
    }
}
