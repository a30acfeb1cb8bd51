import ArgumentParser
import Models
import Sync

/// An entity command (`events`, `types`, `geofences`, `props`) whose `show` and `rm` behave alike for every entity:
/// one lookup by what the user typed, one rendering, one delete. `ShowCommand` and `RemoveCommand` are written once
/// over it, so the entities' subcommands cannot drift apart in their checks, messages or output.
protocol EntityCommand {
    associatedtype Entity: Identifiable where Entity.ID == String
    /// The entity in messages and help: `event`, `event type`, `geofence`, `property definition`.
    static var noun: String { get }
    /// Finds the entity a user named, or throws the not-found error that names it.
    static func lookup(_ reference: String, in store: EventStore) throws -> Entity
}

/// An entity command with `show`.
protocol ShowableEntityCommand: EntityCommand {
    /// The help of `show`'s argument: what a user may type to name one, and its name in the usage line.
    static var referenceHelp: ArgumentHelp { get }
    static func render(_ entity: Entity, _ context: CommandContext, store: EventStore) throws
}

extension ShowableEntityCommand {
    static var referenceHelp: ArgumentHelp { ArgumentHelp("The \(noun)'s id.", valueName: "id") }
}

/// An entity command whose `rm` deletes entities one by one, with nothing to confirm.
protocol RemovableEntityCommand: EntityCommand {
    static func delete(id: String, in store: EventStore) async throws
}

/// `… show ID` (`types show TYPE`).
struct ShowCommand<Entities: ShowableEntityCommand>: TrendyCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "show", abstract: "Show one \(Entities.noun).")
    }
    @OptionGroup var globals: GlobalOptions
    @Argument(help: Entities.referenceHelp) var reference: String

    func run(_ context: CommandContext) async throws {
        let store = try context.store()
        try Entities.render(try Entities.lookup(reference, in: store), context, store: store)
    }
}

/// `… rm ID…`: every id must name an entity, or nothing is deleted.
struct RemoveCommand<Entities: RemovableEntityCommand>: TrendyCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "rm", abstract: "Delete \(Entities.noun)s.")
    }
    @OptionGroup var globals: GlobalOptions
    @Argument(help: ArgumentHelp("\(Entities.noun.prefix(1).uppercased() + Entities.noun.dropFirst()) ids."))
    var ids: [String]

    func validate() throws {
        if ids.isEmpty { throw ValidationError("give at least one \(Entities.noun) id") }
    }

    func run(_ context: CommandContext) async throws {
        let store = try context.store()
        var seen = Set<String>()
        // An id given twice (or in two cases) is one entity, deleted once.
        let entities = try ids.map { try Entities.lookup($0, in: store) }.filter { seen.insert($0.id).inserted }
        for entity in entities { try await Entities.delete(id: entity.id, in: store) }
        DeletedOutput.render(entities.map(\.id), noun: Entities.noun, context)
    }
}

/// `… rm` output: `{"deleted": [ids]}`, or the ids one a line.
enum DeletedOutput {
    static func render(_ ids: [String], noun: String, _ context: CommandContext) {
        if context.console.json {
            context.console.out(json: EntityJSON.deleted(ids))
            return
        }
        for id in ids { context.console.out(id) }
        context.console.note("deleted \(ids.count) \(noun)\(ids.count == 1 ? "" : "s")")
    }
}
