import ArgumentParser
import Foundation
import Models
import Persistence
import Protocols
import Sync

extension ExportFormat: ExpressibleByArgument {}

struct ExportCommand: TrendyCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write events (and what they need) to a JSON or CSV file.",
        discussion: """
            JSON carries event types, property definitions, geofences and events, and imports back \
            losslessly. CSV carries events one a row with their type's name, colour and icon; geofences are \
            referenced by id.

            Examples:
              trendyctl export --output backup.json
              trendyctl export --format csv --type Coffee --since 2026-11-01 > coffee.csv
            """)
    @OptionGroup var globals: GlobalOptions
    @Option(parsing: .unconditional, help: "json (default) or csv; guessed from --output's extension.") var format:
        ExportFormat?
    @Option(parsing: .unconditional, help: "Only this event type.") var type: String?
    @Option(parsing: .unconditional, help: "Events from this time on.") var since: String?
    @Option(parsing: .unconditional, help: "Events up to this time (a day: to its end).") var until: String?
    @Option(parsing: .unconditional, help: "Write here instead of stdout.") var output: String?

    func run(_ context: CommandContext) async throws {
        let store = try context.store()
        let now = context.now
        let filtered = type != nil || since != nil || until != nil
        let range = try TimeInput.range(since: since, until: until, now: now)
        let query = EventQuery(
            eventTypeId: try type.map { try Lookup.eventType($0, in: store).id }, since: range.since, until: range.until
        )
        let chosen = format ?? output.flatMap(ExportFormat.guess(path:)) ?? .json
        // One snapshot for the whole file, while a sync beside it goes on: its lists agree with each other, and
        // no event is written twice or missed because a pulled change moved it between two pages.
        let (written, typeCount, fencesLeftOut) = try store.readingSnapshot { snapshot in
            let document = try Self.document(of: snapshot, query: query, filtered: filtered, at: now)
            return (try emit(document, chosen), document.eventTypes.count, document.geofencesLeftOut)
        }
        let leftOut = [(written.leftOut, "event(s)"), (fencesLeftOut, "geofence(s)")].filter { $0.0 > 0 }
        if !leftOut.isEmpty {
            context.console.note(
                "warning: left out \(leftOut.map { "\($0.0) \($0.1)" }.joined(separator: " and ")) that name a type "
                    + "or geofence this database no longer holds (a change the server refused: `trendyctl queue "
                    + "list`); the file imports without them")
        }
        if let output {
            context.console.note("exported \(written.events) event(s) and \(typeCount) type(s) to \(output)")
        }
    }

    /// The export of one snapshot. Events are read a page at a time, oldest first (the order they happened), and
    /// written as they are read: an export of a million events holds one page, not the account. The file must
    /// import: a geofence naming a type that is gone here, and an event whose type or geofence is gone here (kept
    /// because the server refused its change, sync-engine §9.1), are left out.
    static func document(
        of snapshot: LocalSnapshot, query: EventQuery, filtered: Bool, at now: Date
    ) throws -> ExportDocument {
        var types = try snapshot.eventTypes()
        let typeIds = Set(types.map(\.id))
        let held = try snapshot.geofences()
        var geofences = held.filter { $0.eventTypeIds.allSatisfy(typeIds.contains) }
        let geofencesLeftOut = held.count - geofences.count
        let fenceIds = Set(geofences.map(\.id))
        var pages = ExportDocument.EventPages { after in
            var page = query
            (page.oldestFirst, page.after, page.limit) = (true, after, ExportDocument.pageSize)
            return try snapshot.events(page)
        }
        pages.keep = { typeIds.contains($0.eventTypeId) && ($0.geofenceId.map(fenceIds.contains) ?? true) }
        if filtered {
            var usedTypes = Set<String>()
            var usedFences = Set<String>()
            try pages.walk { event in
                usedTypes.insert(event.eventTypeId)
                if let fence = event.geofenceId { usedFences.insert(fence) }
            }
            geofences = geofences.filter { usedFences.contains($0.id) }
            for fence in geofences { usedTypes.formUnion(fence.eventTypeIds) }
            types = types.filter { usedTypes.contains($0.id) }
        }
        let definitions = try types.flatMap { try snapshot.propertyDefinitions(eventTypeId: $0.id) }
        var document = ExportDocument(
            eventTypes: types, propertyDefinitions: definitions, geofences: geofences, events: pages,
            exportedAt: now)
        document.geofencesLeftOut = filtered ? 0 : geofencesLeftOut
        return document
    }

    /// Writes `document` to `--output` (whole or not at all) or to stdout.
    private func emit(_ document: ExportDocument, _ format: ExportFormat) throws -> ExportDocument.Written {
        guard let output else {
            return try document.write(format) { FileHandle.standardOutput.write($0) }
        }
        do {
            var written = ExportDocument.Written()
            try PrivateFiles.write(to: output) { handle in
                written = try document.write(format) { try handle.write(contentsOf: $0) }
            }
            return written
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure("cannot write \(output): \(error.localizedDescription)", code: "io")
        }
    }
}

struct ImportCommand: TrendyCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Read a file written by `trendyctl export`; all of it or nothing.",
        discussion: """
            Ids are kept, so importing the same file twice changes nothing; an id that exists here with other \
            values is an error. Imported entities are queued for the next sync like any local change. Exit \
            status 65 when the file does not parse or validate: then nothing was imported.

            Examples:
              trendyctl import backup.json --dry-run
              trendyctl import coffee.csv
              cat backup.json | trendyctl import - --format json
            """)
    @OptionGroup var globals: GlobalOptions
    @Argument(help: "The file, or - for stdin.") var file: String
    @Option(parsing: .unconditional, help: "json or csv; guessed from the file's extension, else its content.")
    var format: ExportFormat?
    @Flag(help: "Check everything and report, but write nothing.") var dryRun = false

    func run(_ context: CommandContext) async throws {
        let bytes: Data
        if file == "-" {
            bytes = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError.failure("cannot read \(file): \(error.localizedDescription)", code: "io")
            }
        }
        // `export | import -` works as it reads: a name without an extension is told by what the file holds.
        guard let chosen = format ?? ExportFormat.guess(path: file) ?? ExportFormat.guess(content: bytes) else {
            throw CLIError.usage("cannot tell the format of \(file): pass --format json or --format csv")
        }
        let batch = try ExportDocument.read(bytes, as: chosen)
        let summary: ImportSummary
        do {
            let console = context.console
            // A large file takes seconds: a terminal sees how far it is.
            summary = try await context.store().importEntities(
                batch, dryRun: dryRun,
                progress: console.showsProgress
                    ? { done, total in
                        console.progress("\r\u{1B}[2K\(dryRun ? "checking" : "importing") \(done)/\(total)")
                    }
                    : nil)
            if console.showsProgress { console.progress("\r\u{1B}[2K") }
        } catch let error as EventStoreError {
            throw CLIError.invalidInput("\(error); nothing was imported")
        } catch let error as DataStoreError where error.isEntityConflict {
            throw CLIError.invalidInput("\(error); nothing was imported")
        }
        let kinds: [(MutationEntityType, String)] = [
            (.eventType, "event_types"), (.propertyDefinition, "property_definitions"), (.geofence, "geofences"),
            (.event, "events"),
        ]
        if context.console.json {
            func counts(_ values: [MutationEntityType: Int]) -> JSONValue {
                .object(Dictionary(uniqueKeysWithValues: kinds.map { ($0.1, .number(Double(values[$0.0] ?? 0))) }))
            }
            context.console.out(json: [
                "dry_run": .bool(dryRun), "created": counts(summary.created), "unchanged": counts(summary.unchanged),
            ])
            return
        }
        let created = kinds.map { "\(summary.created[$0.0] ?? 0) \($0.1.replacingOccurrences(of: "_", with: " "))" }
        let unchanged = summary.unchanged.values.reduce(0, +)
        context.console.summary(
            (dryRun ? "would import " : "imported ") + created.joined(separator: ", ")
                + (unchanged > 0 ? "; \(unchanged) already here" : ""))
    }
}

extension DataStoreError {
    /// A queued delete or sequence clash: the import names an entity this database is deleting.
    var isEntityConflict: Bool {
        switch self {
        case .entityDeleted, .invalidSequence: true
        default: false
        }
    }
}
