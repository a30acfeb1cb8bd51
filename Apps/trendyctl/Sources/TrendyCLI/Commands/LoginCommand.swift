import ArgumentParser
import Foundation
import Models

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
        // A device its user revoked signs in again as a new device (api-v1 §16); its data and queue stay.
        let renewedDevice = try TrendyContainer.renewRevokedDevice(databaseAt: context.settings.databasePath)
        let server = globals.server ?? context.settings.server?.root.text
        if context.console.json {
            context.console.out(json: [
                "server": server.map(JSONValue.string) ?? .null, "token_file": .string(context.settings.tokenFilePath),
                "new_device": renewedDevice.map { .string($0.uuidString.lowercased()) } ?? .null,
            ])
        }
        context.console.note(
            "token stored in \(context.settings.tokenFilePath)" + (server.map { " for \($0)" } ?? "; no server set yet")
        )
        if let renewedDevice {
            context.console.note(
                "this device was revoked; it syncs from now on as a new device, \(renewedDevice.uuidString.lowercased())"
            )
        }
    }
}
