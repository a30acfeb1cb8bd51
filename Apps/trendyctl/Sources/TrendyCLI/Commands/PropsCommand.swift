import ArgumentParser
import Foundation
import Models
import Sync

struct PropsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "props", abstract: "Property definitions: the fields an event type's events carry.",
        discussion: """
            Examples:
              trendyctl props add Coffee strength --label Strength --kind number --default 3
              trendyctl props add Coffee size --label Size --kind select --option small --option large
              trendyctl props list Coffee
              trendyctl props edit ID --label "Cup size" --order 2
            """,
        subcommands: [Add.self, List.self, Edit.self, RemoveCommand<PropsCommand>.self])

    static func render(_ definition: PropertyDefinition, _ context: CommandContext, store: EventStore) throws {
        let definition = try store.shown(definition)
        if context.console.json {
            context.console.out(json: EntityJSON.propertyDefinition(definition))
            return
        }
        var record = Record()
        record.add("id", definition.id)
        record.add("key", definition.key)
        record.add("label", definition.label)
        record.add("kind", definition.propertyType.rawValue)
        record.add("options", definition.options.isEmpty ? nil : definition.options.joined(separator: ", "))
        record.add("default", definition.defaultValue.map { JSONText.string($0) })
        record.add("order", String(definition.displayOrder))
        record.add("status", definition.syncStatus.rawValue)
        record.render(context.console)
    }

    /// `--default VALUE` read as the definition's kind.
    static func defaultValue(_ text: String?, for definition: PropertyDefinition, now: Date) throws -> JSONValue? {
        guard let text else { return definition.defaultValue }
        return try PropertyInput.value(text, as: definition, now: now).value
    }

    /// A kept default read again for a new kind or new choices: `3` becomes the text "3", "happy" is no number.
    static func reread(_ value: JSONValue, as definition: PropertyDefinition, now: Date) throws(CLIError) -> JSONValue {
        let text = PropertyInput.display(PropertyValue(type: .text, value: value))
        do {
            return try PropertyInput.value(text, as: definition, now: now).value
        } catch {
            throw .usage(
                "the default \"\(text)\" does not fit \(definition.key) as a \(definition.propertyType.rawValue)"
                    + (definition.propertyType == .select ? " of \(definition.options.joined(separator: ", "))" : "")
                    + ": give --default VALUE or --clear-default")
        }
    }

    struct Add: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Define a property of an event type.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The event type: an id or a name.") var type: String
        @Argument(help: "The property's key, unique within the type.") var key: String
        @Option(parsing: .unconditional, help: "What people read.") var label: String
        @Option(parsing: .unconditional, help: "text, number, boolean, date, select, duration, url or email.") var kind:
            PropertyType
        @Option(
            name: .customLong("option"), parsing: .unconditionalSingleValue, help: "A choice of a select (repeatable).")
        var options: [String] = []
        @Option(name: .customLong("default"), parsing: .unconditional, help: "The default value.") var defaultText:
            String?
        @Option(parsing: .unconditional, help: "Display order.") var order = 0

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let eventType = try Lookup.eventType(type, in: store)
            var draft = PropertyDefinition(
                id: "", eventTypeId: eventType.id, key: key, label: label, propertyType: kind, options: options,
                displayOrder: order, createdAt: context.now, updatedAt: context.now)
            draft.defaultValue = try PropsCommand.defaultValue(defaultText, for: draft, now: context.now)
            let defaultValue = draft.defaultValue
            let definition = try await store.createPropertyDefinition(
                eventTypeId: eventType.id, key: key, label: label, type: kind
            ) { definition in
                definition.options = options
                definition.defaultValue = defaultValue
                definition.displayOrder = order
            }
            try PropsCommand.render(definition, context, store: store)
        }
    }

    struct List: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List an event type's property definitions.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The event type: an id or a name.") var type: String

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let definitions = try store.shown(
                store.propertyDefinitions(eventTypeId: try Lookup.eventType(type, in: store).id))
            context.console.list(definitions, json: EntityJSON.propertyDefinition) {
                Table("ID", "KEY", "LABEL", "KIND", "ORDER", "STATUS", rows: definitions) {
                    [
                        $0.id, $0.key, $0.label, $0.propertyType.rawValue, String($0.displayOrder),
                        $0.syncStatus.rawValue,
                    ]
                }
            }
        }
    }

    struct Edit: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a property definition.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The definition's id.") var id: String
        @Option(parsing: .unconditional, help: "A new label.") var label: String?
        @Option(parsing: .unconditional, help: "A new kind.") var kind: PropertyType?
        @Option(
            name: .customLong("option"), parsing: .unconditionalSingleValue, help: "Replace the choices (repeatable).")
        var options: [String] = []
        @Flag(help: "Remove the choices.") var clearOptions = false
        @Option(name: .customLong("default"), parsing: .unconditional, help: "A new default value.") var defaultText:
            String?
        @Flag(help: "Remove the default value.") var clearDefault = false
        @Option(parsing: .unconditional, help: "A new display order.") var order: Int?

        func validate() throws {
            if !options.isEmpty && clearOptions {
                throw ValidationError("--option and --clear-options exclude each other")
            }
            if defaultText != nil && clearDefault {
                throw ValidationError("--default and --clear-default exclude each other")
            }
        }

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let found = try Lookup.propertyDefinition(id, in: store)
            let now = context.now
            // Read and changed inside the transaction that writes it: a concurrent edit of another field is kept.
            let edited = try await store.updatePropertyDefinition(id: found.id) { definition in
                let before = definition
                if let label { definition.label = label }
                if let kind { definition.propertyType = kind }
                if !options.isEmpty { definition.options = options }
                if clearOptions { definition.options = [] }
                // Choices belong to a select: one that becomes another kind drops them, unless --option gives some.
                if before.propertyType == .select, definition.propertyType != .select, options.isEmpty {
                    definition.options = []
                }
                if clearDefault {
                    definition.defaultValue = nil
                } else if defaultText != nil {
                    definition.defaultValue = try PropsCommand.defaultValue(defaultText, for: definition, now: now)
                } else if let kept = definition.defaultValue,
                    definition.propertyType != before.propertyType || definition.options != before.options
                {
                    definition.defaultValue = try PropsCommand.reread(kept, as: definition, now: now)
                }
                if let order { definition.displayOrder = order }
            }
            try PropsCommand.render(edited, context, store: store)
        }
    }
}

extension PropertyType: ExpressibleByArgument {}

extension PropsCommand: RemovableEntityCommand {
    static let noun = "property definition"
    static func lookup(_ reference: String, in store: EventStore) throws -> PropertyDefinition {
        try Lookup.propertyDefinition(reference, in: store)
    }
    static func delete(id: String, in store: EventStore) async throws {
        try await store.deletePropertyDefinition(id: id)
    }
}
