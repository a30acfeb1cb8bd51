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

struct LoginCommand: TrendyCommand {
    static let runsWithConfigProblems = true
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Store a bearer token, read from stdin, in the token file (mode 0600).",
        discussion: """
            The token is never taken from the command line, where other users and shell history could see it.

            Examples:
              trendyctl login --server https://trendy.example.com --with-token < token.txt
              pass show trendy | trendyctl login --with-token
            """)
    @OptionGroup var globals: GlobalOptions
    @Flag(help: "Read the token from stdin.") var withToken = false

    func validate() throws {
        if !withToken {
            throw ValidationError("pass --with-token and the token on stdin: trendyctl login --with-token < token.txt")
        }
    }

    func run(_ context: CommandContext) async throws {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let token = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw CLIError.usage("no token on stdin: trendyctl login --with-token < token.txt")
        }
        guard !token.contains(where: \.isWhitespace) else {
            throw CLIError.usage("the token on stdin contains whitespace; give the token alone")
        }
        if let server = globals.server {
            var config = context.settings.config
            try config.set("server", server)
            try config.save(to: context.settings.configPath)
        }
        try TokenFile.write(token, to: context.settings.tokenFilePath)
        let server = globals.server ?? context.settings.server?.root.text
        if context.console.json {
            context.console.out(json: [
                "server": server.map(JSONValue.string) ?? .null, "token_file": .string(context.settings.tokenFilePath),
            ])
        }
        context.console.note(
            "token stored in \(context.settings.tokenFilePath)" + (server.map { " for \($0)" } ?? "; no server set yet")
        )
    }
}

struct LogoutCommand: TrendyCommand {
    static let runsWithConfigProblems = true
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Remove the token file.")
    @OptionGroup var globals: GlobalOptions

    func run(_ context: CommandContext) async throws {
        let removed = try TokenFile.remove(context.settings.tokenFilePath)
        if context.console.json { context.console.out(json: ["removed": .bool(removed)]) }
        context.console.note(removed ? "token removed" : "no token file at \(context.settings.tokenFilePath)")
        if context.settings.environment["TRENDY_TOKEN"].map({ !$0.isEmpty }) == true {
            context.console.note("TRENDY_TOKEN is still set in your environment")
        }
    }
}
