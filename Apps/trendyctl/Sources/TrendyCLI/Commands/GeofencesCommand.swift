import ArgumentParser
import Models
import Sync

struct GeofencesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geofences", abstract: "Geofences: places that log events when entered or left.",
        discussion: """
            Examples:
              trendyctl geofences add Office --lat 52.52 --lon 13.405 --radius 150 --entry-type Work --notify-entry
              trendyctl geofences list
              trendyctl geofences edit ID --radius 200 --inactive
            """,
        subcommands: [
            Add.self, List.self, ShowCommand<GeofencesCommand>.self, Edit.self, RemoveCommand<GeofencesCommand>.self,
        ])

    static func render(_ fence: Geofence, _ context: CommandContext, store: EventStore) throws {
        let fence = try store.shown(fence)
        if context.console.json {
            context.console.out(json: EntityJSON.geofence(fence))
            return
        }
        func typeName(_ id: String?) throws -> String? {
            guard let id else { return nil }
            return try store.eventType(id: id)?.name ?? id
        }
        var record = Record()
        record.add("id", fence.id)
        record.add("name", fence.name)
        record.add("centre", "\(fence.latitude), \(fence.longitude)")
        record.add("radius", "\(PropertyInput.display(PropertyValue(type: .number, value: .number(fence.radius)))) m")
        record.add("on entry", try typeName(fence.eventTypeEntryId))
        record.add("on exit", try typeName(fence.eventTypeExitId))
        record.add("active", String(fence.isActive))
        record.add("notify", "entry \(fence.notifyOnEntry), exit \(fence.notifyOnExit)")
        record.add("status", fence.syncStatus.rawValue)
        record.render(context.console)
    }

    struct Add: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create a geofence.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The geofence's name, unique.") var name: String
        @Option(parsing: .unconditional, help: "Latitude of the centre.") var lat: Double
        @Option(parsing: .unconditional, help: "Longitude of the centre.") var lon: Double
        @Option(parsing: .unconditional, help: "Radius in metres, 50–10000.") var radius: Double = 100
        @Option(parsing: .unconditional, help: "Event type logged on entry.") var entryType: String?
        @Option(parsing: .unconditional, help: "Event type logged on exit.") var exitType: String?
        @Flag(help: "Notify on entry.") var notifyEntry = false
        @Flag(help: "Notify on exit.") var notifyExit = false
        @Flag(help: "Create it switched off.") var inactive = false

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let entry = try entryType.map { try Lookup.eventType($0, in: store).id }
            let exit = try exitType.map { try Lookup.eventType($0, in: store).id }
            let fence = try await store.createGeofence(name: name, latitude: lat, longitude: lon) { fence in
                fence.radius = radius
                fence.eventTypeEntryId = entry
                fence.eventTypeExitId = exit
                fence.notifyOnEntry = notifyEntry
                fence.notifyOnExit = notifyExit
                fence.isActive = !inactive
            }
            try GeofencesCommand.render(fence, context, store: store)
        }
    }

    struct List: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List geofences.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let fences = try store.shown(store.geofences())
            context.console.list(fences, json: EntityJSON.geofence) {
                Table("ID", "NAME", "CENTRE", "RADIUS", "ACTIVE", "STATUS", rows: fences) { fence in
                    [
                        fence.id, fence.name, "\(fence.latitude), \(fence.longitude)",
                        PropertyInput.display(PropertyValue(type: .number, value: .number(fence.radius))),
                        String(fence.isActive), fence.syncStatus.rawValue,
                    ]
                }
            }
        }
    }

    struct Edit: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a geofence.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The geofence's id.") var id: String
        @Option(parsing: .unconditional, help: "A new name.") var name: String?
        @Option(parsing: .unconditional, help: "A new latitude.") var lat: Double?
        @Option(parsing: .unconditional, help: "A new longitude.") var lon: Double?
        @Option(parsing: .unconditional, help: "A new radius in metres.") var radius: Double?
        @Option(parsing: .unconditional, help: "Event type logged on entry.") var entryType: String?
        @Option(parsing: .unconditional, help: "Event type logged on exit.") var exitType: String?
        @Flag(help: "Log nothing on entry.") var clearEntryType = false
        @Flag(help: "Log nothing on exit.") var clearExitType = false
        @Flag(inversion: .prefixedNo, help: "Notify on entry or not.") var notifyEntry: Bool?
        @Flag(inversion: .prefixedNo, help: "Notify on exit or not.") var notifyExit: Bool?
        @Flag(help: "Switch it on.") var active = false
        @Flag(help: "Switch it off.") var inactive = false

        func validate() throws {
            if active && inactive { throw ValidationError("--active and --inactive exclude each other") }
            if entryType != nil && clearEntryType {
                throw ValidationError("--entry-type and --clear-entry-type exclude each other")
            }
            if exitType != nil && clearExitType {
                throw ValidationError("--exit-type and --clear-exit-type exclude each other")
            }
        }

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let current = try Lookup.geofence(id, in: store)
            let entry = try entryType.map { try Lookup.eventType($0, in: store).id }
            let exit = try exitType.map { try Lookup.eventType($0, in: store).id }
            let edited = try await store.updateGeofence(id: current.id) { fence in
                if let name { fence.name = name }
                if let lat { fence.latitude = lat }
                if let lon { fence.longitude = lon }
                if let radius { fence.radius = radius }
                if let entry { fence.eventTypeEntryId = entry }
                if let exit { fence.eventTypeExitId = exit }
                if clearEntryType { fence.eventTypeEntryId = nil }
                if clearExitType { fence.eventTypeExitId = nil }
                if let notifyEntry { fence.notifyOnEntry = notifyEntry }
                if let notifyExit { fence.notifyOnExit = notifyExit }
                if active { fence.isActive = true }
                if inactive { fence.isActive = false }
            }
            try GeofencesCommand.render(edited, context, store: store)
        }
    }
}

extension GeofencesCommand: ShowableEntityCommand, RemovableEntityCommand {
    static let noun = "geofence"
    static func lookup(_ reference: String, in store: EventStore) throws -> Geofence {
        try Lookup.geofence(reference, in: store)
    }
    static func delete(id: String, in store: EventStore) async throws { try await store.deleteGeofence(id: id) }
}
