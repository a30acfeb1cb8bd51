import ArgumentParser
import Foundation
import Models
import Sync

struct StatusCommand: TrendyCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What is waiting to sync, and how the last sync went. Never touches the network.")
    @OptionGroup var globals: GlobalOptions

    func run(_ context: CommandContext) async throws {
        let engine = try context.offlineContainer().engine
        try await engine.loadInitialState()
        let snapshot = await engine.snapshot
        let breakerOpen = snapshot.breakerOpen || snapshot.retryAfterSeconds > 0
        let retryAfter = Int(snapshot.retryAfterSeconds.rounded(.up))
        let server = context.settings.server
        if context.console.json {
            context.console.out(json: [
                "server": server.map { .string($0.root.text) } ?? .null,
                "pending": .number(Double(snapshot.pendingCount)), "failed": .number(Double(snapshot.deadLetterCount)),
                "cursor": .number(Double(snapshot.cursor)), "owed": .number(Double(snapshot.owedCount)),
                "last_sync_at": snapshot.lastSuccessAt.map(EntityJSON.time) ?? .null,
                "state": .string(snapshot.state.name),
                "circuit_breaker": ["open": .bool(breakerOpen), "retry_after_seconds": .number(Double(retryAfter))],
            ])
            return
        }
        var record = Record()
        record.add(
            "server", server.map { "\($0.root.text) (\($0.source))" } ?? "none — `trendyctl config set server URL`")
        record.add("state", snapshot.state.name)
        record.add("pending", "\(snapshot.pendingCount) change(s) to push")
        record.add(
            "failed",
            "\(snapshot.deadLetterCount)" + (snapshot.deadLetterCount > 0 ? " — see `trendyctl queue list`" : ""))
        if snapshot.owedCount > 0 {
            record.add("owed", "\(snapshot.owedCount) to read back from the server at the next sync")
        }
        record.add("cursor", String(snapshot.cursor))
        record.add("last sync", snapshot.lastSuccessAt.map { TimeInput.display($0) } ?? "never")
        record.add("breaker", breakerOpen ? "open, retry in \(retryAfter) s" : "closed")
        record.render(context.console)
    }
}
