import ArgumentParser
import Foundation
import Models
import Sync

struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Local changes waiting to be pushed, and the ones that failed.",
        discussion: """
            Examples:
              trendyctl queue list
              trendyctl queue retry --all        # failed changes go out with the next sync
              trendyctl queue discard ID         # give up on a change; its entity is marked failed
            """,
        subcommands: [List.self, Retry.self, Discard.self])

    struct List: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List queued changes in push order.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: CommandContext) async throws {
            let mutations = try await context.offlineContainer().engine.mutations()
            context.console.list(mutations, json: EntityJSON.mutation) {
                Table("ID", "ENTITY", "OPERATION", "STATE", "ATTEMPTS", "LAST ERROR", rows: mutations) { mutation in
                    [
                        mutation.id, "\(mutation.entityType.rawValue) \(mutation.entityId)",
                        mutation.operation.rawValue,
                        mutation.state.rawValue, String(mutation.attempts), mutation.lastError ?? "",
                    ]
                }
            }
        }
    }

    /// The ids given must be queued (and, for `retry`, failed); nil means all.
    static func selection(
        _ ids: [String], all: Bool, in engine: SyncEngine, failedOnly: Bool
    ) async throws -> [String]? {
        if all { return nil }
        let queued = try await engine.mutations()
        for id in ids {
            guard let mutation = queued.first(where: { $0.id == id.lowercased() }) else {
                throw CLIError.notFound("no queued change \(id); `trendyctl queue list` shows the ids")
            }
            if failedOnly && !mutation.isDeadLetter {
                throw CLIError.failure("change \(id) has not failed; only failed changes can be retried")
            }
        }
        // An id given twice is one change: the engine takes each queued change once (discard filters the queue by
        // the ids, and a revived change is no longer dead).
        return ids.map { $0.lowercased() }
    }

    struct Retry: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry", abstract: "Put failed changes back in the queue.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "Change ids.") var ids: [String] = []
        @Flag(help: "Every failed change.") var all = false

        func validate() throws {
            if ids.isEmpty == !all { throw ValidationError("give change ids or --all") }
        }

        func run(_ context: CommandContext) async throws {
            let engine = try context.offlineContainer().engine
            let selection = try await QueueCommand.selection(ids, all: all, in: engine, failedOnly: true)
            let count = try await engine.retryDeadLetters(ids: selection)
            context.console.out(json: ["retried": .number(Double(count))], orText: "\(count)")
            context.console.note("\(count) change(s) will go out with the next sync")
        }
    }

    struct Discard: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "discard",
            abstract: "Drop queued changes; their entities are marked failed.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "Change ids.") var ids: [String] = []
        @Flag(help: "Every queued change.") var all = false

        func validate() throws {
            if ids.isEmpty == !all { throw ValidationError("give change ids or --all") }
        }

        func run(_ context: CommandContext) async throws {
            let engine = try context.offlineContainer().engine
            let selection = try await QueueCommand.selection(ids, all: all, in: engine, failedOnly: false)
            let count = try await engine.discardMutations(ids: selection)
            context.console.out(json: ["discarded": .number(Double(count))], orText: "\(count)")
            context.console.note("discarded \(count) change(s); the next `trendyctl sync` restores the server's copies")
        }
    }
}
