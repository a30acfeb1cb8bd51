import ArgumentParser
import Foundation
import Models
import Sync

struct HistoryCommand: TrendyCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Past syncs, newest first.")
    @OptionGroup var globals: GlobalOptions
    @Option(parsing: .unconditional, help: "At most this many (1–100).") var limit = 20

    func validate() throws {
        if !(1...100).contains(limit) { throw ValidationError("--limit must be 1–100") }
    }

    func run(_ context: CommandContext) async throws {
        let entries = try await context.offlineContainer().engine.history(limit: limit)
        context.console.list(entries, json: EntityJSON.history) {
            Table("STARTED", "KIND", "OUTCOME", "MS", "PUSHED", "PULLED", "MESSAGE", rows: entries) { entry in
                [
                    TimeInput.display(entry.startedAt), entry.kind.rawValue, entry.outcome, String(entry.durationMs),
                    String(entry.pushed), String(entry.pulled), entry.message ?? "",
                ]
            }
        }
    }
}
