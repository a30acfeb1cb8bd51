import ArgumentParser
import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

@testable import TrendyCLI

/// The pieces behind the commands, in process.
@Suite("trendyctl components")
struct ComponentTests {
    /// The shipped binary links no TestSupport: a test hands the container its mock as a `.custom` client.
    static func inMemory(_ model: InMemoryTrendyServer) -> TrendyConfiguration {
        TrendyConfiguration(
            storage: .inMemory,
            remote: .custom(MockNetworkClient(server: model, userId: MockNetworkClient.defaultUserId)),
            sync: .standard())
    }

    @Test("a custom client builds a graph that writes, syncs and reads without files or sockets")
    func inMemoryContainer() async throws {
        let model = InMemoryTrendyServer(futureIdTolerance: nil)
        let laptop = try TrendyContainer.make(Self.inMemory(model))
        let phone = try TrendyContainer.make(Self.inMemory(model))
        #expect(laptop.hasServer && laptop.networkClient is MockNetworkClient)
        let type = try await laptop.events.createEventType(name: "Coffee")
        #expect(await laptop.engine.performSync().outcome.name == "synced")
        #expect(await phone.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(try phone.events.eventTypes().map(\.id) == [type.id])
    }

    @Test("without a server the graph still serves local data, and a sync fails offline without a request")
    func noServer() async throws {
        let container = try TrendyContainer.make(
            TrendyConfiguration(storage: .inMemory, remote: .none, sync: .standard()))
        #expect(!container.hasServer)
        _ = try await container.events.createEventType(name: "Tea")
        guard case .offline(let message) = await container.engine.performSync().outcome else {
            Issue.record("expected offline")
            return
        }
        #expect(message.contains("no server"))
    }

    @Test("a local store builds no engine; a transaction that reads and creates is one unit of work and one INSERT")
    func oneTransactionCreate() async throws {
        let stores = try MockDataStoreFactory()
        let events = EventStore(dataStoreFactory: stores, clock: ManualClock())
        #expect(events.engine == nil)
        let coffee = try await events.createEventType(name: "Coffee")
        stores.store.resetCallCounts()
        let before = stores.makeDataStoreCallCount
        let event = try await events.transaction { transaction in
            let type = try Lookup.eventType("coffee", among: try transaction.eventTypes())
            #expect(try transaction.propertyDefinitions(eventTypeId: type.id).isEmpty)
            return try transaction.createEvent(eventTypeId: type.id, timestamp: transaction.now)
        }
        #expect(stores.makeDataStoreCallCount - before == 1, "one unit of work: reads and write in one transaction")
        #expect(stores.store.saveCallCount == 1)
        #expect(stores.store.callCount(.insertEvent) == 1 && stores.store.upsertEventCallCount == 0)
        #expect(stores.store.callCount(.setSyncStatus) == 0, "the row is written pending, never synced then flipped")
        #expect(try events.event(id: event.id)?.syncStatus == .pending && event.eventTypeId == coffee.id)
        #expect(try events.mutations(of: event.id).map(\.operation) == [.create])
    }

    @Test("a transaction that throws writes nothing")
    func transactionRollsBack() async throws {
        let stores = try MockDataStoreFactory()
        let events = EventStore(dataStoreFactory: stores, clock: ManualClock())
        let coffee = try await events.createEventType(name: "Coffee")
        await #expect(throws: CLIError.self) {
            try await events.transaction { transaction in
                _ = try transaction.createEvent(eventTypeId: coffee.id, timestamp: transaction.now)
                throw CLIError.usage("a bad --prop after the row was written")
            }
        }
        #expect(try events.events().isEmpty && events.mutations(of: coffee.id).count == 1)
    }

    @Test("the progress line: push counts with a bar; pulled rows with their rate once half a second has passed")
    func progressLine() {
        let pushing = SyncSnapshot(state: .syncing(synced: 6, total: 24))
        #expect(SyncCommand.progressLine(pushing, pullingFor: 0) == "pushing 6/24 [######..................]")
        #expect(SyncCommand.progressLine(SyncSnapshot(state: .pulling), pullingFor: 0) == "pulling…")
        let pulled = SyncSnapshot(state: .pulling, pulledCount: 12_000)
        #expect(SyncCommand.progressLine(pulled, pullingFor: 0.2) == "pulling: 12000 rows")
        #expect(SyncCommand.progressLine(pulled, pullingFor: 3) == "pulling: 12000 rows, 4000 rows/s")
    }

    @Test(
        "import reads the entities' Codable shape strictly; an error names the member and what is wrong with it",
        arguments: [
            (#"{"id":"x","event_type_id":"T","timestamp":"2026-01-01T00:00:00Z"}"#, "events[0].id is not a UUID"),
            (#"{"event_type_id":"T","timestamp":"2026-01-01T00:00:00Z"}"#, "events[0].id is missing"),
            (#"{"id":"I","event_type_id":"T","timestamp":"yesterday"}"#, "events[0].timestamp is not an RFC 3339 date"),
            (
                #"{"id":"I","event_type_id":"T","timestamp":"2026-01-01T00:00:00Z","is_all_day":"yes"}"#,
                "events[0].is_all_day must be true or false"
            ),
            (
                #"{"id":"I","event_type_id":"T","timestamp":"2026-01-01T00:00:00Z","source_type":"fax"}"#,
                "events[0].source_type is not one of manual, imported, geofence, healthkit"
            ),
            (
                #"{"id":"I","event_type_id":"T","timestamp":"2026-01-01T00:00:00Z","end_date":"soon"}"#,
                "events[0].end_date is not an RFC 3339 date"
            ),
            (
                #"{"id":"I","event_type_id":"T","timestamp":"2026-01-01T00:00:00Z","properties":{"p":{"type":1}}}"#,
                ""
            ),
        ])
    func importErrors(event: String, message: String) throws {
        let id = "0190f5c0-3f00-7a11-8b22-000000000001"
        let type = "0190f5c0-3f00-7a11-8b22-000000000002"
        let text =
            #"{"format":"\#(ExportDocument.formatName)","version":\#(ExportDocument.version),"events":["#
            + event.replacingOccurrences(of: #""I""#, with: "\"\(id.uppercased())\"").replacingOccurrences(
                of: #""T""#, with: "\"\(type)\"") + "]}"
        if message.isEmpty {
            let batch = try ExportDocument.readJSON(Data(text.utf8))
            #expect(batch.events.first?.id == id && batch.events.first?.eventTypeId == type, "ids read lowercase")
            return
        }
        #expect {
            try ExportDocument.readJSON(Data(text.utf8))
        } throws: { error in
            (error as? CLIError)?.message == message
        }
    }

    @Test("CSV: quoting, embedded newlines, CRLF, and bare empty (null) versus quoted empty (\"\")")
    func csv() throws {
        let values: [String?] = ["plain", "a, b", "say \"hi\"", "two\nlines", "", nil]
        let line = values.map(CSV.field).joined(separator: ",")
        #expect(line == #"plain,"a, b","say ""hi""","two"# + "\n" + #"lines","","#)
        #expect(try CSV.parse(line + "\r\n" + "x,y\r\n") == [values, ["x", "y"]])
        #expect(try CSV.parse("a,b\nc,d") == [["a", "b"], ["c", "d"]], "no final newline")
        #expect(throws: CLIError.self) { try CSV.parse("\"open") }
    }

    @Test("CSV export: every optional event field round-trips, and import reads columns by name in any order")
    func csvEveryField() throws {
        let type = Build.eventType()
        let event = Build.event(eventTypeId: type.id, notes: "n") { $0.details = Build.everyDetail }
        let text = ExportDocument.csv(ImportBatch(eventTypes: [type], events: [event]))
        let read = try ExportDocument.readCSV(Data(text.utf8))
        #expect(read.events == [event] && read.eventTypes == [type])

        let reordered = try CSV.parse(text).map { row in row.reversed().map(CSV.field).joined(separator: ",") }
        #expect(try ExportDocument.readCSV(Data((reordered.joined(separator: "\r\n") + "\r\n").utf8)) == read)
    }

    @Test("CSV export neutralises formula cells (OWASP) and import restores them: the round trip stays lossless")
    func csvFormulaCells() throws {
        let type = Build.eventType()
        let notes = [#"=HYPERLINK("http://x")"#, "+1", "-2+3", "@SUM(A1)", "\tlead", "\rlead", "'quoted", "''", "a=b"]
        let events = notes.enumerated().map { index, note in
            Build.event(eventTypeId: type.id, notes: note) {
                $0.timestamp = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
                $0.details.locationLatitude = -1.5
                $0.details.locationLongitude = -0.12
            }
        }
        let text = ExportDocument.csv(ImportBatch(eventTypes: [type], events: events))
        let rows = try CSV.parse(text)
        let column = try #require(rows.first?.firstIndex(of: "notes"))
        let cells = rows.dropFirst().map { $0[column] }
        let expected: [String?] = [
            #"'=HYPERLINK("http://x")"#, "'+1", "'-2+3", "'@SUM(A1)", "'\tlead", "'\rlead", "''quoted", "'''", "a=b",
        ]
        #expect(cells == expected)
        let latitude = try #require(rows.first?.firstIndex(of: "location_latitude"))
        #expect(rows.dropFirst().allSatisfy { $0[latitude] == "-1.5" }, "numbers stay numbers")
        #expect(try ExportDocument.readCSV(Data(text.utf8)).events == events)
    }

    @Test("CSV import refuses a file that is not UTF-8, naming the offset of the first bad byte")
    func csvNotUTF8() throws {
        let bytes = Data("id,event_type_id,timestamp\nx,caf".utf8) + [0xE9]
        #expect {
            try ExportDocument.readCSV(bytes)
        } throws: { error in
            let error = error as? CLIError
            return error?.exitCode == 65 && error?.message.contains("offset 32") == true
        }
    }

    @Test("the config file is TOML: tables, dotted keys, inline comments, literal strings; rewritten as tables")
    func configFile() throws {
        let dotted = try ConfigFile.parse(
            "# mine\nserver = \"http://h:1\"  # inline\n\nsync.interval = 30\nsync.profile = 'standard'\n", path: "c")
        let tabled = try ConfigFile.parse(
            "server = \"\"\"http://h:1\"\"\"\n[sync] # the engine\ninterval = 0x1E\nprofile = \"standard\"\n", path: "c"
        )
        #expect(dotted["server"] == "http://h:1" && dotted["sync.interval"] == "30")
        #expect(dotted["sync.profile"] == "standard")
        #expect(tabled == dotted, "both TOML forms of the same keys read the same")
        #expect(
            dotted.text
                == "# trendyctl configuration; edit with `trendyctl config set KEY VALUE`\nserver = \"http://h:1\"\n\n"
                + "[sync]\ninterval = 30\nprofile = \"standard\"\n")
        #expect(try ConfigFile.parse(dotted.text, path: "c") == dotted)
        var edited = dotted
        #expect(throws: CLIError.self) { try edited.set("sync.interval", "0") }
        #expect(throws: CLIError.self) { try edited.set("sync.profile", "fast") }
        #expect(edited == dotted, "a refused value changes nothing")
    }

    @Test("bad TOML names the file, line and column; nothing is read from it")
    func configFileErrors() {
        for (text, position) in [
            ("server \"x\"", "c:1:8"), ("server = 1\nserver = 2\n", "c:2:10"), ("a = [\n", "c:1:7"),
        ] {
            #expect {
                try ConfigFile.parse(text, path: "c")
            } throws: { error in
                guard let error = error as? CLIError, error.code == "config" else { return false }
                return error.message.hasPrefix(position + ": ") && error.message.contains("config set")
            }
        }
    }

    @Test("set and unset keep keys they do not know and drop tables left empty")
    func configFileEdits() throws {
        var config = try ConfigFile.parse("editor.theme = \"dark\"\ntags = [1, 2]\n[sync]\ninterval = 5\n", path: "c")
        try config.set("sync.profile", "standard")
        try config.set("server", "http://127.0.0.1:9")
        try config.unset("sync.interval")
        #expect(
            config.values == [
                "editor.theme": "dark", "server": "http://127.0.0.1:9", "sync.profile": "standard",
            ])
        #expect(config.text.contains("tags = [ 1, 2 ]"), "a value of a form the CLI does not read survives a rewrite")
        try config.unset("sync.profile")
        #expect(!config.text.contains("[sync]"))
        try config.set("sync.interval", "90")
        #expect(try ConfigFile.parse(config.text, path: "c")["sync.interval"] == "90")
        #expect(config.text.contains("interval = 90"), "a number key is written as a TOML integer")
    }

    @Test("--prop values follow the definition's kind; without one, booleans and numbers are recognised")
    func propertyValues() throws {
        let now = Date(timeIntervalSince1970: 0)
        let size = PropertyDefinition(
            id: "1", eventTypeId: "t", key: "size", label: "Size", propertyType: .select, options: ["s", "l"],
            createdAt: now, updatedAt: now)
        let when = PropertyDefinition(
            id: "2", eventTypeId: "t", key: "when", label: "When", propertyType: .date, createdAt: now, updatedAt: now)
        #expect(try PropertyInput.parse("size=l", definitions: [size], now: now).1.value == "l")
        #expect(throws: CLIError.self) { try PropertyInput.parse("size=m", definitions: [size], now: now) }
        #expect(
            try PropertyInput.parse("when=2026-11-20", definitions: [when], now: now).1
                == PropertyValue(type: .date, value: "2026-11-20T00:00:00.000Z"))
        #expect(try PropertyInput.parse("n=3", definitions: [], now: now).1 == PropertyValue(type: .number, value: 3))
        #expect(
            try PropertyInput.parse("ok=true", definitions: [], now: now).1
                == PropertyValue(type: .boolean, value: true))
        #expect(
            try PropertyInput.parse("t=a=b", definitions: [], now: now).1 == PropertyValue(type: .text, value: "a=b"))
        #expect(throws: CLIError.self) { try PropertyInput.parse("=1", definitions: [], now: now) }
    }

    @Test("every failure maps to its exit code")
    func exitCodes() {
        #expect(CLIError.from(EventStoreError.notFound(.event, id: "x")).exitCode == 1)
        #expect(CLIError.from(EventStoreError.invalid(field: "name", reason: "must not be empty")).exitCode == 64)
        #expect(CLIError.from(DataStoreError.busy(seconds: 5)).exitCode == 75)
        #expect(CLIError.from(DataStoreError.notADatabase(path: "/x")).exitCode == 1)
        #expect(CLIError.from(DataStoreError.damaged(path: "/x", detail: "malformed")).exitCode == 1)
        #expect(CLIError.invalidInput("x").exitCode == 65 && CLIError.authentication("x").exitCode == 4)
    }

    /// Without `commandName`, ArgumentParser names a command with `String(describing:)` of its type, which on Linux
    /// scans every protocol conformance in the binary: 22 unnamed subcommands were half of the instructions of
    /// `trendyctl --version` (docs/performance.md, `events add`).
    @Test("every command names itself, so no name is derived by reflection at start")
    func everyCommandNamesItself() {
        var unnamed: [String] = []
        func visit(_ command: any ParsableCommand.Type, path: String) {
            let name = command.configuration.commandName
            if name == nil { unnamed.append("\(path) <\(command)>") }
            for subcommand in command.configuration.subcommands {
                visit(subcommand, path: "\(path) \(name ?? "?")")
            }
        }
        visit(Trendyctl.self, path: "")
        #expect(unnamed.isEmpty, "commands without commandName: \(unnamed)")
        #expect(Trendyctl.configuration.subcommands.count > 5)
    }

    /// What the database holds beside the server (dead letters whose parent another device removed) stays out of an
    /// export, so that the file imports: every reference in it names an entity in it.
    @Test("an export leaves out events and geofences naming a type or geofence the database no longer holds")
    func exportLeavesOutDanglingReferences() throws {
        let stores = try MockDataStoreFactory()
        let gone = Build.id(99)
        let store = stores.makeDataStore()
        try store.insertEventType(Build.eventType(id: Build.id(1)))
        try store.insertGeofence(Build.geofence(id: Build.id(200), name: "Kept", eventTypeEntryId: Build.id(1)))
        try store.insertGeofence(Build.geofence(id: Build.id(201), name: "Dangling", eventTypeExitId: gone))
        try store.insertEvent(Build.event(id: Build.id(100)) { $0.geofenceId = Build.id(200) })
        try store.insertEvent(Build.event(id: Build.id(101), eventTypeId: gone))
        try store.insertEvent(Build.event(id: Build.id(102)) { $0.geofenceId = Build.id(201) })
        try store.save()
        let events = EventStore(dataStoreFactory: stores, clock: ManualClock())
        for filtered in [false, true] {
            let (document, written) = try events.readingSnapshot { snapshot in
                let document = try ExportCommand.document(
                    of: snapshot, query: EventQuery(), filtered: filtered, at: Build.instant)
                return (document, try document.write(.json) { _ in })
            }
            #expect(document.eventTypes.map(\.id) == [Build.id(1)])
            #expect(document.geofences.map(\.id) == [Build.id(200)])
            #expect(document.geofencesLeftOut == (filtered ? 0 : 1))
            #expect(written.events == 1 && written.leftOut == 2, "filtered: \(filtered)")
        }
    }
}
