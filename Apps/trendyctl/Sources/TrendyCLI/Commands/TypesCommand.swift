import ArgumentParser
import Models
import Protocols
import Sync

struct TypesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types", abstract: "Event types: what you track.",
        discussion: """
            Examples:
              trendyctl types add Coffee --color "#8B4513" --icon cup.and.saucer
              trendyctl types list
              trendyctl types edit coffee --name Espresso
              trendyctl types rm Espresso
              trendyctl types merge LOCAL_ID SERVER_ID   # after a create refused as a duplicate name
            """,
        subcommands: [Add.self, List.self, ShowCommand<TypesCommand>.self, Edit.self, Remove.self, Merge.self])

    static func render(_ type: EventType, _ context: CommandContext, store: EventStore) throws {
        let type = try store.shown(type)
        if context.console.json {
            context.console.out(json: EntityJSON.eventType(type))
            return
        }
        var record = Record()
        record.add("id", type.id)
        record.add("name", type.name)
        record.add("color", type.color)
        record.add("icon", type.icon)
        record.add("created", TimeInput.display(type.createdAt))
        record.add("status", type.syncStatus.rawValue)
        record.render(context.console)
    }

    struct Add: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create an event type.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The type's name, unique.") var name: String
        @Option(parsing: .unconditional, help: "A colour, e.g. \"#007AFF\".") var color = EventType.defaultColor
        @Option(parsing: .unconditional, help: "A symbol name.") var icon = EventType.defaultIcon

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let type = try await store.createEventType(name: name, color: color, icon: icon)
            try TypesCommand.render(type, context, store: store)
        }
    }

    struct List: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List event types by name.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let types = try store.shown(store.eventTypes())
            try context.console.list(types, json: EntityJSON.eventType) {
                let counts = Dictionary(grouping: try store.events(), by: \.eventTypeId).mapValues(\.count)
                return Table("ID", "NAME", "COLOR", "ICON", "EVENTS", "STATUS", rows: types) { type in
                    [type.id, type.name, type.color, type.icon, String(counts[type.id] ?? 0), type.syncStatus.rawValue]
                }
            }
        }
    }

    struct Edit: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change an event type.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "An id or a name.") var type: String
        @Option(parsing: .unconditional, help: "A new name.") var name: String?
        @Option(parsing: .unconditional, help: "A new colour.") var color: String?
        @Option(parsing: .unconditional, help: "A new symbol name.") var icon: String?

        func validate() throws {
            if name == nil && color == nil && icon == nil {
                throw ValidationError("nothing to change: give --name, --color or --icon")
            }
        }

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let current = try Lookup.eventType(type, in: store)
            let edited = try await store.updateEventType(id: current.id) { type in
                if let name { type.name = name }
                if let color { type.color = color }
                if let icon { type.icon = icon }
            }
            try TypesCommand.render(edited, context, store: store)
        }
    }

    struct Merge: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Move one event type's events, property definitions and geofence references into another.",
            discussion: """
                When two devices create a type of the same name offline, the server refuses the second create
                (`trendyctl queue list` shows it, with the id of the server's type). Merging the local type into
                the server's one moves everything it holds there and discards the refused create; the next sync
                pushes the moves.
                """)
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The type to merge and remove: an id (or a name only it has).") var source: String
        @Argument(help: "The type that receives everything: an id (or a name only it has).") var target: String

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let types = try store.eventTypes()
            let from = try Lookup.eventType(source, among: types)
            let into = try Lookup.eventType(target, among: types)
            // A key both types define with different kinds: the moved events keep their values, of SOURCE's kind.
            let kinds = Dictionary(
                try store.propertyDefinitions(eventTypeId: into.id).map { ($0.key, $0.propertyType) }
            ) { first, _ in first }
            let clashes = try store.propertyDefinitions(eventTypeId: from.id).filter { definition in
                kinds[definition.key].map { $0 != definition.propertyType } ?? false
            }
            let merge = try await store.mergeEventType(from.id, into: into.id)
            for definition in clashes {
                context.console.note(
                    "warning: \(definition.key) is \(definition.propertyType.rawValue) in \(from.name) but "
                        + "\(kinds[definition.key]?.rawValue ?? "?") in \(into.name): the moved events keep their "
                        + "\(definition.propertyType.rawValue) values; `trendyctl events edit ID --prop "
                        + "\(definition.key)=VALUE` rewrites one")
            }
            if context.console.json {
                context.console.out(
                    json: [
                        "merged": .string(from.id), "into": .string(into.id), "events": .number(Double(merge.events)),
                        "property_definitions": .number(Double(merge.propertyDefinitions)),
                        "geofences": .number(Double(merge.geofences)),
                    ])
            } else {
                context.console.out(into.id)
                context.console.note(
                    "merged \(from.name) (\(from.id)) into \(into.name): \(merge.events) event(s), "
                        + "\(merge.propertyDefinitions) property definition(s), \(merge.geofences) geofence(s) moved")
            }
        }
    }

    struct Remove: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Delete an event type with its events and property definitions.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "An id or a name.") var type: String
        @Flag(name: [.short, .long], help: "Delete without asking, even when the type has events.") var yes = false

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let target = try Lookup.eventType(type, in: store)
            let events = try store.events(EventQuery(eventTypeId: target.id)).count
            // At a terminal, deleting events asks first; scripts (no terminal, --json, --quiet) are not stopped.
            if events > 0, !yes, context.console.canAsk,
                !context.console.confirm("Delete \(target.name) and its \(events) event(s)?")
            {
                throw CLIError.failure("nothing deleted; pass --yes to delete without asking", code: "cancelled")
            }
            try await store.deleteEventType(id: target.id)
            if context.console.json {
                context.console.out(json: EntityJSON.deleted([target.id]))
            } else {
                context.console.out(target.id)
                context.console.note("deleted \(target.name) and its \(events) event(s)")
            }
        }
    }
}

extension TypesCommand: ShowableEntityCommand {
    static let noun = "event type"
    static let referenceHelp = ArgumentHelp("An id or a name.", valueName: "type")
    static func lookup(_ reference: String, in store: EventStore) throws -> EventType {
        try Lookup.eventType(reference, in: store)
    }
}
