import ArgumentParser
import Foundation
import Models
import Sync

struct HistoryCommand: TrendyCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Past syncs, newest first.")
    @OptionGroup var globals: GlobalOptions
    @Option(help: "At most this many (1–100).") var limit = 20

    func validate() throws {
        if !(1...100).contains(limit) { throw ValidationError("--limit must be 1–100") }
    }

    func run(_ context: CommandContext) async throws {
        let entries = try await context.offlineContainer().engine.history(limit: limit)
        if context.console.json {
            context.console.out(json: .array(entries.map(EntityJSON.history)))
            return
        }
        var table = Table("STARTED", "KIND", "OUTCOME", "MS", "PUSHED", "PULLED", "MESSAGE")
        for entry in entries {
            table.add(
                TimeInput.display(entry.startedAt), entry.kind.rawValue, entry.outcome, String(entry.durationMs),
                String(entry.pushed), String(entry.pulled), entry.message ?? "")
        }
        table.render(context.console)
    }
}
