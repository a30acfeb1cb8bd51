import ArgumentParser
import Foundation
import Models

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
