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
    @Option(help: "json (default) or csv; guessed from --output's extension.") var format: ExportFormat?
    @Option(help: "Only this event type.") var type: String?
    @Option(parsing: .unconditional, help: "Events from this time on.") var since: String?
    @Option(parsing: .unconditional, help: "Events up to this time (a day: to its end).") var until: String?
    @Option(help: "Write here instead of stdout.") var output: String?

    func run(_ context: CommandContext) async throws {
        let store = try context.store()
        let now = context.now
        let filtered = type != nil || since != nil || until != nil
        let query = EventQuery(
            eventTypeId: try type.map { try Lookup.eventType($0, in: store).id },
            since: try since.map { text throws(CLIError) in try TimeInput.parse(text, option: "--since", now: now) },
            until: try until.map { text throws(CLIError) in
                try TimeInput.parse(text, option: "--until", now: now, bound: .end)
            })
        // Events are read a page at a time, oldest first (the order they happened), and written as they are read:
        // an export of a million events holds one page, not the account.
        let pages = ExportDocument.EventPages { after in
            var page = query
            (page.oldestFirst, page.after, page.limit) = (true, after, ExportDocument.pageSize)
            return try store.events(page)
        }
        var geofences = try store.geofences()
        var typeIds = Set<String>()
        if filtered {
            var used = Set<String>()
            try pages.walk { event in
                typeIds.insert(event.eventTypeId)
                if let fence = event.geofenceId { used.insert(fence) }
            }
            geofences = geofences.filter { used.contains($0.id) }
        }
        for fence in geofences { typeIds.formUnion([fence.eventTypeEntryId, fence.eventTypeExitId].compactMap { $0 }) }
        let types = try store.eventTypes().filter { !filtered || typeIds.contains($0.id) }
        let definitions = try types.flatMap { try store.propertyDefinitions(eventTypeId: $0.id) }
        let chosen = format ?? output.flatMap(ExportFormat.guess(path:)) ?? .json
        let document = ExportDocument(
            eventTypes: types, propertyDefinitions: definitions, geofences: geofences, events: pages,
            exportedAt: now)
        var written = 0
        if let output {
            do {
                try PrivateFiles.write(to: output) { handle in
                    written = try document.write(chosen) { try handle.write(contentsOf: $0) }
                }
            } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError.failure("cannot write \(output): \(error.localizedDescription)", code: "io")
            }
            context.console.note("exported \(written) event(s) and \(types.count) type(s) to \(output)")
        } else {
            _ = try document.write(chosen) { FileHandle.standardOutput.write($0) }
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
    @Option(help: "json or csv; guessed from the file's extension.") var format: ExportFormat?
    @Flag(help: "Check everything and report, but write nothing.") var dryRun = false

    func run(_ context: CommandContext) async throws {
        guard let chosen = format ?? ExportFormat.guess(path: file) else {
            throw CLIError.usage("cannot tell the format of \(file): pass --format json or --format csv")
        }
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
        let batch = chosen == .json ? try ExportDocument.readJSON(bytes) : try ExportDocument.readCSV(bytes)
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
