import Foundation
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `trendyctl sync`, exports and imports against trendy-server on 127.0.0.1.
@Suite("trendyctl sync, export and import")
struct SyncCommandTests {
    @Test("two databases converge through the server; sync --json has the trendyctl §1.4 shape")
    func twoDatabasesConverge() async throws {
        try await withTwoDevices { _, laptop, phone in
            _ = try await laptop.json("types", "add", "Coffee")
            let event = try #require(
                try await laptop.json("events", "add", "Coffee", "--notes", "flat white")["id"]?.stringValue)

            let pushed = try await laptop.json("sync")
            #expect(
                pushed.keys == [
                    "bootstrapped", "cursor", "duration_ms", "failed", "given_back", "message", "outcome", "pending",
                    "pulled", "pushed",
                ])
            #expect(pushed["outcome"] == "synced" && pushed["pushed"] == 2 && pushed["pending"] == 0)
            let pulled = try await phone.json("sync")
            #expect(pulled["outcome"] == "synced" && pulled["bootstrapped"] == true)
            #expect(try await phone.json("events", "show", event)["notes"] == "flat white")

            _ = try await phone.json("events", "edit", event, "--notes", "cortado")
            let extra = try #require(
                try await phone.json("events", "add", "Coffee", "--at", "2026-11-20")["id"]?.stringValue)
            _ = try await phone.json("sync")
            #expect(try await laptop.json("sync")["outcome"] == "synced")
            let laptopEvents = try await laptop.json("events", "list")
            #expect(laptopEvents == (try await phone.json("events", "list")))
            #expect(laptopEvents.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() == [event, extra].sorted())

            _ = try await laptop.json("events", "rm", extra)
            _ = try await laptop.json("sync")
            _ = try await phone.json("sync")
            #expect(try await phone.json("events", "list").arrayValue?.count == 1)
            let history = try #require(try await phone.json("history").arrayValue)
            #expect(
                history.first?.keys == ["duration_ms", "id", "message", "outcome", "pulled", "pushed", "started_at"])
            #expect(try await phone.json("status")["last_sync_at"] != .null)
        }
    }

    @Test("exit 4: a token the server rejects, and no token at all")
    func authentication() async throws {
        try await withDevice(token: "wrong-token") { server, rejected in
            let run = try await rejected.run("sync", "--json")
            #expect(run.status == 4 && run.json?["outcome"] == "auth_required", "\(run)")
            #expect(run.errorJSON?["error"]?["code"] == "auth_required")

            let anonymous = try CLI(server: server.root.text)
            let missing = try await anonymous.run("sync")
            #expect(missing.status == 4 && missing.stderr.contains("trendyctl login"), "\(missing)")
        }
    }

    @Test("exit 75: the server is down — nothing lost, the changes wait")
    func serverDown() async throws {
        // Port 1: below the ephemeral range, so no server of a parallel test can take it. (The address of a server
        // this test stopped could: once another test's server answered it, with a 401.)
        let cli = try CLI(server: "http://127.0.0.1:1", token: "alice-token")
        _ = try await cli.json("types", "add", "Tea")
        let run = try await cli.run("sync", "--json")
        #expect(run.status == 75 && run.json?["outcome"] == "offline" && run.json?["pending"] == 1, "\(run)")
        #expect(try await cli.json("status")["pending"] == 1)
        // A wrong address reads like a server that is down: the message names the address and where it was set.
        let told = try await cli.run("sync")
        #expect(told.status == 75, "\(told)")
        #expect(
            told.stderr.contains("the server at http://127.0.0.1:1 (from TRENDY_SERVER) is unreachable")
                && told.stderr.contains("nothing was lost") && told.stderr.contains("check the address"), "\(told)")
    }

    @Test("exit 75: another sync holds the database's lock; the network is not touched")
    func lockHeld() async throws {
        let requests = RequestCounter()
        let handler: StubHTTPServer.Handler = { _ in
            requests.increment()
            return StubHTTPServer.Reply(status: 200, body: "[]")
        }
        try await StubHTTPServer.with(handler) { stub in
            let cli = try CLI(server: stub.root.text, token: "t")
            _ = try await cli.json("types", "add", "Tea")
            let descriptor = open(cli.databasePath + ".sync-lock", O_CREAT | O_RDWR, 0o600)
            #expect(descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            defer { close(descriptor) }
            let run = try await cli.run("sync")
            #expect(run.status == 75 && run.stderr.contains("another sync is running"), "\(run)")
            #expect(requests.value == 0)
            flock(descriptor, LOCK_UN)
        }
    }

    @Test("exit 5: a change the server refuses for good stays as a failed change, listed by queue list")
    func partial() async throws {
        try await withTwoDevices { _, laptop, phone in
            _ = try await laptop.json("types", "add", "Coffee")
            _ = try await laptop.json("sync")
            _ = try await phone.json("types", "add", "Coffee")  // same name, another id: the server refuses it
            let run = try await phone.run("sync", "--json")
            #expect(run.status == 5 && run.json?["outcome"] == "partial", "\(run)")
            let failed = try #require(try await phone.json("queue", "list").arrayValue?.first)
            #expect(failed["state"] == "failed" && failed["last_error"]?.stringValue?.contains("conflict") == true)
            #expect(try await phone.json("status")["failed"] == 1)
            let retried = try await phone.json("queue", "retry", "--all")
            #expect(retried == ["retried": 1])
        }
    }

    @Test(
        "sync --watch --poll runs again after the interval, a JSON line a run; a signal mid-run cancels it: exit 128 + signal",
        .timeLimit(.minutes(1)),  // if the child died before its third pull, nothing would release the wait
        arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func watchThenInterrupt(signal: Int32, exitCode: Int32) async throws {
        // Run 1 bootstraps (no change feed), run 2 pulls the feed, run 3's pull is held in the server: the signal
        // lands while a run is in flight.
        let pulls = RequestCounter()
        let held = CallGate()
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.testHooks.beforeHandler = { method, path in
            guard method == "GET" && path == "/api/v1/changes" else { return }
            if pulls.increment() >= 2 { _ = await held.pass() }
        }
        try await LiveTrendyServer.with(configuration) { server in
            let cli = try CLI(server: server.root.text, token: "alice-token")
            _ = try await cli.json("types", "add", "Coffee")
            let watch = try await ChildProcess.start(
                "trendyctl", ["sync", "--watch", "--poll", "--interval", "1", "--json"], environment: cli.environment)
            await held.waitForArrivals(1)
            watch.send(signal)
            let result = await watch.result()
            held.release()

            #expect(result.status == exitCode, "\(result.stdout)\n\(result.stderr)")
            let runs = result.stdout.split(separator: "\n").map { try? JSONText.parse(String($0)) }
            #expect(runs.count == 3, "one JSON line a run: \(result.stdout)")
            #expect(runs.first??["bootstrapped"] == true && runs.first??["pushed"] == 1)
            #expect(
                runs.dropFirst().first??["outcome"] == "synced" && runs.dropFirst().first??["bootstrapped"] == false)
            #expect(runs.last??["outcome"] == "error" && runs.last??["message"] == "cancelled")
            #expect(result.stderr.contains("next sync in 1 s") && result.stderr.contains("\"interrupted\""))
            #expect(try await cli.json("status")["pending"] == 0)
            #expect(try await cli.json("types", "list").arrayValue?.count == 1)
        }
    }

    @Test("sync --full bootstraps again and keeps changes not yet pushed")
    func fullSync() async throws {
        try await withDevice(token: "bob-token") { _, cli in
            _ = try await cli.json("types", "add", "Walk")
            _ = try await cli.json("sync")
            _ = try await cli.json("types", "add", "Swim")
            let full = try await cli.json("sync", "--full")
            #expect(full["bootstrapped"] == true && full["outcome"] == "synced" && full["pushed"] == 1)
            #expect(try await cli.json("types", "list").arrayValue?.count == 2)
        }
    }

    @Test("export then import round-trips losslessly in JSON and CSV; --dry-run writes nothing")
    func exportImport() async throws {
        let source = try CLI()
        _ = try await source.json("types", "add", "Run", "--color", "#00FF00")
        _ = try await source.json("props", "add", "Run", "km", "--label", "Km", "--kind", "number")
        _ = try await source.json("geofences", "add", "Park", "--lat", "1.5", "--lon", "2.5", "--entry-type", "Run")
        _ = try await source.json(
            "events", "add", "Run", "--at", "2026-11-20T06:30:00.123Z", "--notes", "a, \"quoted\"\nnote", "--prop",
            "km=5", "--lat", "52", "--lon", "13")
        _ = try await source.json("events", "add", "Run", "--at", "2026-11-21", "--notes", "")
        for format in ["json", "csv"] {
            let file = source.home.appendingPathComponent("export.\(format)").path
            #expect(try await source.run("export", "--output", file).status == 0)
            let target = try CLI()
            let dry = try await target.json("import", file, "--dry-run")
            #expect(dry["dry_run"] == true && dry["created"]?["events"] == 2)
            #expect(try await target.json("events", "list") == [], "a dry run writes nothing")
            let imported = try await target.json("import", file)
            #expect(imported["created"]?["events"] == 2, "\(format)")
            let again = try await target.json("import", file)
            #expect(again["unchanged"]?["events"] == 2 && again["created"]?["events"] == 0)
            let original = try await source.run("export", "--format", format)
            let copy = try await target.run("export", "--format", format)
            if format == "json" {
                #expect(Self.withoutVolatile(original.json) == Self.withoutVolatile(copy.json), "json round trip")
            } else {
                #expect(original.stdout == copy.stdout, "csv round trip")
            }
        }
    }

    @Test(
        "an export longer than its pages streams every event once, oldest first, equal times included, in both formats")
    func exportStreamsPages() async throws {
        let source = try CLI()
        var types: [[String: JSONValue]] = []
        for name in ["Run", "Swim"] { types.append(try await source.json("types", "add", name).objectValue ?? [:]) }
        // 2.5 pages of events, in pairs at one instant (one of each type; the id orders a pair), listed newest first
        // in the file on purpose.
        let count = ExportPages.count
        let events: [JSONValue] = (0..<count).reversed().map { number in
            [
                "id": .string(String(format: "0192f1c4-7a00-7000-8000-%012d", number)),
                "event_type_id": types[number % 2]["id"] ?? .null, "timestamp": .string(ExportPages.time(number / 2)),
                "is_all_day": false, "source_type": "manual", "sync_status": "pending",
            ]
        }
        let file = source.home.appendingPathComponent("many.json").path
        let document: JSONValue = [
            "format": "trendy-export", "version": 1, "exported_at": .string(ExportPages.time(0)),
            "event_types": .array(types.map(JSONValue.object)),
            "events": .array(events),
        ]
        try JSONText.string(document).write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await source.json("import", file)["created"]?["events"] == .number(Double(count)))

        let expected = (0..<count).map { String(format: "0192f1c4-7a00-7000-8000-%012d", $0) }
        let exported = try await source.run("export", "--output", source.home.appendingPathComponent("out.json").path)
        #expect(exported.status == 0 && exported.stderr.contains("exported \(count) event(s)"), "\(exported)")
        let written = try JSONText.parse(Data(contentsOf: source.home.appendingPathComponent("out.json")))
        #expect(written["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == expected)
        let csv = try await source.run("export", "--format", "csv")
        let ids = csv.stdout.split(separator: "\r\n").dropFirst().map { String($0.prefix(36)) }
        #expect(ids == expected, "csv: one row per event, oldest first")
    }

    enum ExportPages {
        static let count = 5_001

        static func time(_ seconds: Int) -> String {
            RFC3339.string(from: Date(timeIntervalSince1970: 1_780_000_000 + Double(seconds)))
        }
    }

    /// An export without `exported_at` and statuses: what must survive a round trip.
    static func withoutVolatile(_ document: JSONValue?) -> JSONValue? {
        guard case .object(var members)? = document else { return nil }
        members["exported_at"] = nil
        for key in ["event_types", "property_definitions", "geofences", "events"] {
            members[key] = members[key]?.arrayValue.map { items in
                .array(
                    items.map { item in
                        guard case .object(var fields) = item else { return item }
                        fields["sync_status"] = nil
                        return .object(fields)
                    })
            }
        }
        return .object(members)
    }

    @Test("exit 65: a file that does not parse or validate imports nothing")
    func badImport() async throws {
        let cli = try CLI()
        _ = try await cli.json("types", "add", "Run")
        let type = try #require(try await cli.json("types", "list").arrayValue?.first?["id"]?.stringValue)
        let good =
            #"{"id":"0190f5c0-3f00-7a11-8b22-000000000001","event_type_id":"\#(type)","timestamp":"2026-11-20T06:30:00.000Z"}"#
        let files = [
            "not-json.json": "{oops",
            "wrong-shape.json": #"{"format":"trendy-export","version":1,"events":[\#(good),{"id":"x"}]}"#,
            "unknown-type.json":
                #"{"format":"trendy-export","version":1,"events":[\#(good),{"id":"0190f5c0-3f00-7a11-8b22-000000000002","event_type_id":"0190f5c0-3f00-7a11-8b22-00000000dead","timestamp":"2026-11-20T06:31:00.000Z"}]}"#,
            "short-row.csv": "id,event_type_id,timestamp\n0190f5c0-3f00-7a11-8b22-000000000001,\(type)\n",
            // A column read twice, or not read at all, would drop a cell without a word.
            "twice.csv":
                "id,event_type_id,timestamp,notes,notes\n0190f5c0-3f00-7a11-8b22-000000000001,\(type),"
                + "2026-11-20T06:30:00.000Z,one,two\n",
            "unknown-column.csv":
                "id,event_type_id,timestamp,mood\n0190f5c0-3f00-7a11-8b22-000000000001,\(type),"
                + "2026-11-20T06:30:00.000Z,happy\n",
            // The server's text rules (TextLimit), checked before anything is written.
            "nul-notes.json":
                #"{"format":"trendy-export","version":1,"events":[\#(good),{"id":"0190f5c0-3f00-7a11-8b22-000000000002","event_type_id":"\#(type)","timestamp":"2026-11-20T06:31:00.000Z","notes":"a\u0000b"}]}"#,
            "long-notes.json":
                #"{"format":"trendy-export","version":1,"events":[\#(good),{"id":"0190f5c0-3f00-7a11-8b22-000000000002","event_type_id":"\#(type)","timestamp":"2026-11-20T06:31:00.000Z","notes":"\#(String(repeating: "n", count: 16_385))"}]}"#,
            // The wire's "no time" (api-v1 §3.2): the push could never send it.
            "zero-time.json":
                #"{"format":"trendy-export","version":1,"events":[\#(good),{"id":"0190f5c0-3f00-7a11-8b22-000000000002","event_type_id":"\#(type)","timestamp":"0001-01-01T00:00:00.000Z"}]}"#,
        ]
        var contents = files.mapValues { Data($0.utf8) }
        // A spreadsheet's Latin-1 export: "café" with é as the single byte 0xE9.
        contents["latin1.csv"] =
            Data("id,event_type_id,timestamp\n0190f5c0-3f00-7a11-8b22-000000000001,caf".utf8) + [0xE9]
        for (name, bytes) in contents {
            let path = cli.home.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            let run = try await cli.run("import", path)
            #expect(run.status == 65 && run.stderr.contains("error:"), "\(name): \(run)")
            if name == "twice.csv" { #expect(run.stderr.contains("names notes twice"), "\(run)") }
            if name == "unknown-column.csv" { #expect(run.stderr.contains("\"mood\" that is no field"), "\(run)") }
            if ["nul-notes.json", "long-notes.json", "zero-time.json"].contains(name) {
                #expect(run.stderr.contains("event 0190f5c0-3f00-7a11-8b22-000000000002"), "names the row: \(run)")
            }
        }
        #expect(try await cli.json("events", "list") == [], "nothing was imported")
        // Neither the extension nor the content tells the format: a usage error that asks for --format.
        let unknown = cli.home.appendingPathComponent("data.txt")
        try Data("just some text\n".utf8).write(to: unknown)
        #expect(try await cli.run("import", unknown.path).status == 64)
    }
}
