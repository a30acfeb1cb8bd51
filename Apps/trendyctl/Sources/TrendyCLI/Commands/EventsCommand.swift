import ArgumentParser
import Foundation
import Models
import Protocols
import Sync

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Events: what happened, when.",
        discussion: """
            Examples:
              trendyctl events add Coffee
              trendyctl events add Run --at "2026-11-21 07:30" --prop km=5.2 --notes "river loop"
              trendyctl events list --type Coffee --since 2026-11-01 --limit 20
              trendyctl events edit ID --clear-notes --unset-prop km
              trendyctl events rm ID ID
            """,
        subcommands: [
            Add.self, List.self, ShowCommand<EventsCommand>.self, Edit.self, RemoveCommand<EventsCommand>.self,
        ])

    static func render(_ event: Event, _ context: CommandContext, store: EventStore) throws {
        let event = try store.shown(event)
        if context.console.json {
            context.console.out(json: EntityJSON.event(event))
            return
        }
        var record = Record()
        record.add("id", event.id)
        record.add("type", try store.eventType(id: event.eventTypeId)?.name ?? event.eventTypeId)
        record.add(
            "time", TimeInput.display(event.timestamp, allDay: event.isAllDay) + (event.isAllDay ? " (all day)" : ""))
        record.add("ends", event.endDate.map { TimeInput.display($0) })
        record.add("notes", event.notes)
        record.add("source", event.sourceType == .manual ? nil : event.sourceType.rawValue)
        if let latitude = event.locationLatitude, let longitude = event.locationLongitude {
            record.add("location", "\(latitude), \(longitude)" + (event.locationName.map { " (\($0))" } ?? ""))
        } else {
            record.add("location", event.locationName)
        }
        record.add("geofence", event.geofenceId)
        record.add("external id", event.externalId)
        record.add("title", event.originalTitle)
        for key in event.properties.keys.sorted() {
            if let value = event.properties[key] { record.add(key, PropertyInput.display(value)) }
        }
        record.add("status", event.syncStatus.rawValue)
        record.render(context.console)
    }

    /// `--lat` and `--lon` come together.
    static func location(_ latitude: Double?, _ longitude: Double?) throws -> (Double, Double)? {
        switch (latitude, longitude) {
        case (let latitude?, let longitude?): return (latitude, longitude)
        case (nil, nil): return nil
        default: throw ValidationError("--lat and --lon go together")
        }
    }

    struct Add: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Log an event.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The event type: an id or a name.") var type: String
        @Option(parsing: .unconditional, help: "When it happened (default now). \(TimeInput.accepted).")
        var at: String?
        @Option(parsing: .unconditional, help: "When it ended.") var end: String?
        @Flag(help: "An all-day event.") var allDay = false
        @Option(parsing: .unconditional, help: "Free text.") var notes: String?
        @Option(
            name: .customLong("prop"), parsing: .unconditionalSingleValue, help: "A property, KEY=VALUE (repeatable).")
        var properties: [String] = []
        @Option(parsing: .unconditional, help: "Latitude in degrees.") var lat: Double?
        @Option(parsing: .unconditional, help: "Longitude in degrees.") var lon: Double?
        @Option(parsing: .unconditional, help: "A place name.") var locationName: String?
        @Option(parsing: .unconditional, help: "An id from another system.") var externalId: String?
        @Option(parsing: .unconditional, help: "The title in another system.") var title: String?

        func validate() throws { _ = try EventsCommand.location(lat, lon) }

        func run(_ context: CommandContext) async throws {
            let now = context.now
            let timestamp = try at.map { text throws(CLIError) in try TimeInput.parse(text, option: "--at", now: now) }
            let endDate = try end.map { text throws(CLIError) in try TimeInput.parse(text, option: "--end", now: now) }
            let location = try EventsCommand.location(lat, lon)
            // One transaction: the type's lookup, its property definitions and the write see the same database.
            let (eventType, event) = try await context.store().transaction { transaction in
                let eventType = try Lookup.eventType(type, among: try transaction.eventTypes())
                let definitions = try transaction.propertyDefinitions(eventTypeId: eventType.id)
                var values: [String: PropertyValue] = [:]
                for assignment in properties {
                    let (key, value) = try PropertyInput.parse(assignment, definitions: definitions, now: now)
                    values[key] = value
                }
                let at = timestamp ?? now
                let event = try transaction.createEvent(
                    eventTypeId: eventType.id, timestamp: allDay ? TimeInput.allDay(at) : at
                ) {
                    event in
                    event.endDate = endDate
                    event.isAllDay = allDay
                    event.notes = notes
                    event.properties = values
                    event.locationLatitude = location?.0
                    event.locationLongitude = location?.1
                    event.locationName = locationName
                    event.externalId = externalId
                    event.originalTitle = title
                }
                return (eventType, event)
            }
            if context.console.json {
                context.console.out(json: EntityJSON.event(event))
            } else {
                context.console.out(event.id)
                context.console.note(
                    "logged \(eventType.name) at \(TimeInput.display(event.timestamp, allDay: event.isAllDay))")
            }
        }
    }

    struct List: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List events, newest first.")
        @OptionGroup var globals: GlobalOptions
        @Option(parsing: .unconditional, help: "Only this event type.") var type: String?
        @Option(parsing: .unconditional, help: "From this time on (a day: from its start; -7d: a week ago).")
        var since: String?
        @Option(parsing: .unconditional, help: "Up to this time (a day: to its end, included).") var until: String?
        @Option(parsing: .unconditional, help: "pending, synced or failed.") var status: SyncStatus?
        @Option(parsing: .unconditional, help: "At most this many.") var limit: Int?

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        }

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let range = try TimeInput.range(since: since, until: until, now: context.now)
            let query = EventQuery(
                eventTypeId: try type.map { try Lookup.eventType($0, in: store).id }, since: range.since,
                until: range.until, limit: status == nil ? limit : nil)
            // `--status` is the status shown (trendyctl §1.3), which the queue decides: filtered after reading.
            var events = try store.shown(store.events(query))
            if let status {
                events = Array(events.lazy.filter { $0.syncStatus == status }.prefix(limit ?? Int.max))
            }
            try context.console.list(events, json: EntityJSON.event) {
                let names = Dictionary(uniqueKeysWithValues: try store.eventTypes().map { ($0.id, $0.name) })
                return Table("ID", "TYPE", "TIME", "STATUS", "NOTES", rows: events) { event in
                    [
                        event.id, names[event.eventTypeId] ?? event.eventTypeId,
                        TimeInput.display(event.timestamp, allDay: event.isAllDay), event.syncStatus.rawValue,
                        event.notes ?? "",
                    ]
                }
            }
        }
    }

    struct Edit: TrendyCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change an event.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The event's id.") var id: String
        @Option(parsing: .unconditional, help: "Move it to another event type.") var type: String?
        @Option(parsing: .unconditional, help: "A new time.") var at: String?
        @Option(parsing: .unconditional, help: "A new end.") var end: String?
        @Flag(help: "Remove the end.") var clearEnd = false
        @Flag(inversion: .prefixedNo, help: "All day or not.") var allDay: Bool?
        @Option(parsing: .unconditional, help: "New notes.") var notes: String?
        @Flag(help: "Remove the notes.") var clearNotes = false
        @Option(
            name: .customLong("prop"), parsing: .unconditionalSingleValue,
            help: "Set a property, KEY=VALUE (repeatable).")
        var properties: [String] =
            []
        @Option(
            name: .customLong("unset-prop"), parsing: .unconditionalSingleValue, help: "Remove a property (repeatable)."
        )
        var unset: [String] = []
        @Option(parsing: .unconditional, help: "Latitude in degrees.") var lat: Double?
        @Option(parsing: .unconditional, help: "Longitude in degrees.") var lon: Double?
        @Flag(help: "Remove the coordinates.") var clearLocation = false
        @Option(parsing: .unconditional, help: "A place name.") var locationName: String?

        func validate() throws {
            if end != nil && clearEnd { throw ValidationError("--end and --clear-end exclude each other") }
            if notes != nil && clearNotes { throw ValidationError("--notes and --clear-notes exclude each other") }
            if try EventsCommand.location(lat, lon) != nil && clearLocation {
                throw ValidationError("--lat/--lon and --clear-location exclude each other")
            }
            let setKeys = Set(properties.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 })
            if let both = unset.first(where: setKeys.contains) {
                throw ValidationError("--prop \(both)=… and --unset-prop \(both) exclude each other")
            }
        }

        func run(_ context: CommandContext) async throws {
            let store = try context.store()
            let current = try Lookup.event(id, in: store)
            let now = context.now
            let typeId = try type.map { try Lookup.eventType($0, in: store).id }
            let timestamp = try at.map { text throws(CLIError) in try TimeInput.parse(text, option: "--at", now: now) }
            let endDate = try end.map { text throws(CLIError) in try TimeInput.parse(text, option: "--end", now: now) }
            let definitions = try store.propertyDefinitions(eventTypeId: typeId ?? current.eventTypeId)
            var assigned: [String: PropertyValue] = [:]
            for assignment in properties {
                let (key, value) = try PropertyInput.parse(assignment, definitions: definitions, now: now)
                assigned[key] = value
            }
            let location = try EventsCommand.location(lat, lon)
            // The edit reads the row inside the transaction that writes it: only what the flags name changes, so a
            // concurrent edit of another field (another process on this database) is kept.
            let edited = try await store.updateEvent(id: current.id) { event in
                if let typeId { event.eventTypeId = typeId }
                let wasAllDay = event.isAllDay
                if let allDay { event.isAllDay = allDay }
                // An all-day event keeps its calendar date at 00:00 UTC (TimeInput.allDay): a new time, or an event
                // turned all-day, is moved to its local date's; an all-day event not moved keeps its date.
                if let timestamp {
                    event.timestamp = event.isAllDay ? TimeInput.allDay(timestamp) : timestamp
                } else if event.isAllDay && !wasAllDay {
                    event.timestamp = TimeInput.allDay(event.timestamp)
                }
                if let endDate { event.endDate = endDate }
                if clearEnd { event.endDate = nil }
                if let notes { event.notes = notes }
                if clearNotes { event.notes = nil }
                for (key, value) in assigned { event.properties[key] = value }
                for key in unset { event.properties[key] = nil }
                if let location {
                    event.locationLatitude = location.0
                    event.locationLongitude = location.1
                }
                if clearLocation {
                    event.locationLatitude = nil
                    event.locationLongitude = nil
                }
                if let locationName { event.locationName = locationName }
            }
            try EventsCommand.render(edited, context, store: store)
        }
    }
}

extension SyncStatus: ExpressibleByArgument {}

extension EventsCommand: ShowableEntityCommand, RemovableEntityCommand {
    static let noun = "event"
    static func lookup(_ reference: String, in store: EventStore) throws -> Event {
        try Lookup.event(reference, in: store)
    }
    static func delete(id: String, in store: EventStore) async throws { try await store.deleteEvent(id: id) }
}
