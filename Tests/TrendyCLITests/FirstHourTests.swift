import Foundation
import Models
import Testing
import TrendyServerTesting

/// The sharp edges a first-time user met, each through the binary: the config file is
/// validated on load, negative numbers are values, tables stay tables, and times read as people write them.
@Suite("trendyctl first hour")
struct FirstHourTests {
    @Test("a config file with a value out of range or an unknown key is refused with its file, line and range")
    func configValidatedOnLoad() async throws {
        let cli = try CLI()
        let path = try #require(cli.environment["TRENDY_CONFIG"])
        try Data("# mine\n[sync]\ninterval = 0\n".utf8).write(to: URL(fileURLWithPath: path))
        let refused = try await cli.run("events", "list")
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("\(path):3") && refused.stderr.contains("1–86400"), "\(refused)")
        #expect(refused.stderr.contains("`trendyctl config set sync.interval VALUE`"), "names the repair: \(refused)")
        #expect(try await cli.run("config", "set", "sync.interval", "30").status == 0, "the repair runs")
        #expect(try await cli.run("events", "list").status == 0)

        try Data("colour = \"blue\"\n".utf8).write(to: URL(fileURLWithPath: path))
        let unknown = try await cli.run("types", "list")
        #expect(unknown.status == 1 && unknown.stderr.contains("\(path):1: unknown key \"colour\""), "\(unknown)")
        #expect(unknown.stderr.contains("remove it with `trendyctl config unset colour`"), "\(unknown)")
        #expect(try await cli.run("config", "list").stdout.contains("colour=blue"), "config list still shows the file")
        #expect(try await cli.run("config", "unset", "colour").status == 0, "the repair it names works")
        #expect(try await cli.run("types", "list").status == 0)
        let typo = try await cli.run("config", "unset", "colour")
        #expect(typo.status == 64, "a key neither known nor in the file is refused: \(typo)")
    }

    @Test(
        "no silent waits: a rate-limit wait is announced and its end too; --quiet prints nothing; --verbose each request"
    )
    func waitsAreAnnounced() async throws {
        let user = "0190f5c0-3f00-7a11-8b22-000000000001"
        // A 429 to a quarter of the requests: with this seed the first sync meets two and the quiet one one, each a
        // real one-second wait (at 0.5 the three syncs waited 18 s, the longest test of `make test-fast`).
        let server = try await ServerProcess.start([
            "--port", "0", "--in-memory", "--token", "secret-token:\(user)",
            "--fault-429", "0.25", "--fault-seed", "11", "--fault-retry-after", "1",
        ])
        defer { server.stop() }
        let cli = try CLI(server: server.url, token: "secret-token")
        _ = try await cli.json("types", "add", "Tea")
        let sync = try await cli.run("sync")
        #expect(sync.stderr.contains("rate limiting this client: waiting"), "\(sync)")
        #expect(sync.stderr.contains("the rate-limit wait is over; trying again"), "\(sync)")

        _ = try await cli.json("types", "add", "Coffee")
        let quiet = try await cli.run("sync", "--quiet")
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")

        let verbose = try await cli.run("sync", "--verbose")
        let requests = verbose.stderr.split(separator: "\n").filter { $0.hasPrefix("trendyctl: GET /api/v1/") }
        #expect(!requests.isEmpty, "\(verbose)")
        #expect(requests.allSatisfy { $0.hasSuffix(" ms") }, "method, path, status, time: \(requests)")
        #expect(!verbose.stderr.contains("secret-token"))
    }

    @Test("import at a terminal shows its progress; in a pipe it does not")
    func importProgress() async throws {
        let cli = try CLI()
        let type = try #require(try await cli.json("types", "add", "Run")["id"]?.stringValue)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let events = (0..<2500).map { index in
            let time = start.addingTimeInterval(Double(index))
            return
                #"{"id":"\#(UUIDv7.generate(at: time))","event_type_id":"\#(type)","timestamp":"\#(RFC3339.string(from: time))"}"#
        }
        let file = cli.home.appendingPathComponent("many.json")
        try Data(#"{"format":"trendy-export","version":1,"events":[\#(events.joined(separator: ","))]}"#.utf8).write(
            to: file)
        let dry = try await cli.runAtTerminal(["import", file.path, "--dry-run"], typing: "")
        #expect(dry.stdout.contains("checking 1000/2500") && dry.stdout.contains("checking 2500/2500"), "\(dry)")
        let piped = try await cli.run("import", file.path)
        #expect(piped.status == 0 && !piped.stderr.contains("importing"), "\(piped)")
        #expect(try await cli.json("events", "list").arrayValue?.count == 2500)
    }

    @Test("negative numbers are values: --lon -0.12, --lat -33.9")
    func negativeNumbers() async throws {
        let cli = try CLI()
        _ = try await cli.json("types", "add", "Walk")
        let event = try await cli.json("events", "add", "Walk", "--lat", "51.5", "--lon", "-0.12")
        #expect(event["location_longitude"] == -0.12 && event["location_latitude"] == 51.5)
        let fence = try await cli.json("geofences", "add", "Harbour", "--lat", "-33.9", "--lon", "151.2")
        #expect(fence["latitude"] == -33.9)
        let id = try #require(event["id"]?.stringValue)
        let edited = try await cli.json("events", "edit", id, "--lat", "-12.5", "--lon", "-1.5")
        #expect(edited["location_longitude"] == -1.5)
    }

    @Test("any value may start with -: a relative --end, a negative --default and --order, notes that begin with -")
    func valuesStartingWithADash() async throws {
        let cli = try CLI()
        _ = try await cli.json("types", "add", "Walk")
        let event = try await cli.json("events", "add", "Walk", "--at", "-2h", "--end", "-1h", "--notes", "-5")
        #expect(event["notes"] == "-5")
        let start = try #require(event["timestamp"]?.stringValue.flatMap(RFC3339.date(from:)))
        let end = try #require(event["end_date"]?.stringValue.flatMap(RFC3339.date(from:)))
        #expect(abs(end.timeIntervalSince(start) - 3600) < 5, "--end -1h is an hour after --at -2h: \(event)")
        let id = try #require(event["id"]?.stringValue)
        let edited = try await cli.json("events", "edit", id, "--notes", "- tired", "--end", "-30m")
        #expect(edited["notes"] == "- tired")
        let definition = try await cli.json(
            "props", "add", "Walk", "delta", "--label", "Delta", "--kind", "number", "--default", "-1", "--order", "-2")
        #expect(definition["default_value"] == -1 && definition["display_order"] == -2, "\(definition)")
        let outOfRange = try await cli.run("events", "list", "--limit", "-1")
        #expect(outOfRange.status == 64 && outOfRange.stderr.contains("--limit must be 1 or more"), "\(outOfRange)")
        let missing = try await cli.run("events", "add", "Walk", "--notes")
        #expect(missing.status == 64 && missing.stderr.contains("Missing value for '--notes"), "\(missing)")
    }

    @Test("every option of every command takes its next word as its value, as getopt does")
    func everyOptionTakesTheNextWord() async throws {
        let strategies = try await OptionParsing.strategies(of: "trendyctl")
        #expect(
            strategies.count > 40 && strategies["trendyctl events add --notes"] != nil, "\(strategies.keys.sorted())")
        let others = strategies.filter { $0.value != "unconditional" }
        #expect(
            others.isEmpty, "a value starting with - would be taken for a flag: \(others.sorted { $0.key < $1.key })")
    }

    @Test("tables stay tables: line breaks and tabs escaped, long cells cut with …, --wide shows them whole")
    func tablesStayTables() async throws {
        let cli = try CLI()
        _ = try await cli.json("types", "add", "Note")
        let long = String(repeating: "long ", count: 40)
        _ = try await cli.json("events", "add", "Note", "--at", "2026-11-20", "--notes", "one\ntwo\tthree")
        _ = try await cli.json("events", "add", "Note", "--at", "2026-11-21", "--notes", long)
        let table = try await cli.run("events", "list")
        #expect(table.status == 0)
        #expect(table.lines.count == 3, "a header and one line per event: \(table.stdout)")
        #expect(table.stdout.contains(#"one\ntwo\tthree"#))
        let cut = try #require(table.lines.first { $0.contains("long") })
        #expect(cut.hasSuffix("…") && !cut.contains(long.trimmingCharacters(in: .whitespaces)))
        let wide = try await cli.run("events", "list", "--wide")
        #expect(wide.stdout.contains(long.trimmingCharacters(in: .whitespaces)))
    }

    /// `padding(toLength:)` counted UTF-16 units: "🏃 Run" lost its last letter without a `…`, and a CJK name
    /// pushed every later column of its row two terminal columns a character to the right.
    @Test("columns are measured in terminal columns: CJK and emoji names line up and are never cut")
    func wideCharactersLineUp() async throws {
        let cli = try CLI()
        for name in ["Tea", "咖啡咖啡", "🏃 Run"] {
            _ = try await cli.json("types", "add", name)
            _ = try await cli.json("events", "add", name, "--at", "2026-11-21 08:00")
        }
        _ = try await cli.json(
            "events", "add", "Tea", "--at", "2026-11-20", "--notes", String(repeating: "漢", count: 30))
        let table = try await cli.run(["events", "list"], extra: ["TZ": "UTC"])
        // TYPE is as wide as 咖啡咖啡: eight columns, then the two spaces between columns.
        for shown in ["Tea       2026-11-21 08:00", "咖啡咖啡  2026-11-21 08:00", "🏃 Run    2026-11-21 08:00"] {
            #expect(table.stdout.contains(shown), "\(shown): \(table.stdout)")
        }
        #expect(table.stdout.contains(String(repeating: "漢", count: 23) + "…"), "cut at 47 columns: \(table.stdout)")
        let types = try await cli.run("types", "list")
        #expect(types.stdout.contains("🏃 Run    #007AFF") && types.stdout.contains("咖啡咖啡  #007AFF"), "\(types)")
    }

    @Test("all-day events keep their date in every time zone; --until DATE includes the day; -7d and yesterday")
    func timesAsPeopleWriteThem() async throws {
        let cli = try CLI()
        _ = try await cli.json("types", "add", "Nap")
        let allDay = try await cli.run(
            ["events", "add", "Nap", "--at", "2026-11-19", "--all-day", "--json"],
            extra: ["TZ": "America/Los_Angeles"])
        #expect(allDay.json?["timestamp"] == "2026-11-19T00:00:00.000Z", "\(allDay)")
        let id = try #require(allDay.json?["id"]?.stringValue)
        for zone in ["Asia/Tokyo", "America/Los_Angeles", "UTC"] {
            let shown = try await cli.run(["events", "show", id], extra: ["TZ": zone])
            #expect(shown.stdout.contains("2026-11-19 (all day)"), "\(zone): \(shown.stdout)")
        }

        _ = try await cli.run(["events", "add", "Nap", "--at", "2026-11-21 14:05"], extra: ["TZ": "Europe/Berlin"])
        let until = try await cli.run(
            ["events", "list", "--until", "2026-11-21", "--json"], extra: ["TZ": "Europe/Berlin"])
        #expect(until.json?.arrayValue?.count == 2, "the whole of the 21st is included: \(until)")

        // Relative to now, on a device of its own (the dates above are fixed, today is not).
        let relative = try CLI()
        _ = try await relative.json("types", "add", "Nap")
        _ = try await relative.json("events", "add", "Nap", "--at", "-10d")
        _ = try await relative.json("events", "add", "Nap", "--at", "-1h")
        let week = try await relative.json("events", "list", "--since", "-7d")
        #expect(week.arrayValue?.count == 1, "only the event an hour ago: \(week)")
        let sinceYesterday = try await relative.json("events", "list", "--since", "yesterday")
        #expect(sinceYesterday.arrayValue?.count == 1)
        for command in ["events list", "export"] {
            let reversed = try await relative.run(
                command.split(separator: " ").map(String.init) + ["--since", "-1d", "--until", "-2d"])
            #expect(
                reversed.status == 64 && reversed.stderr.contains("--since \"-1d\" is after --until \"-2d\""),
                "a range that ends before it starts is refused, not answered empty: \(reversed)")
        }

        // 0001-01-01 at midnight UTC is the wire's "no time" (api-v1 §3.2): such an event could never be pushed.
        for zone in ["UTC", "Asia/Tokyo"] {
            let zero = try await relative.run(["events", "add", "Nap", "--at", "0001-01-01"], extra: ["TZ": zone])
            #expect(zero.status == 64 && zero.stderr.contains("after 0001-01-01T00:00:00Z"), "\(zone): \(zero)")
        }
        let first = try await relative.run(
            ["events", "add", "Nap", "--at", "0001-01-02", "--json"], extra: ["TZ": "UTC"])
        #expect(first.json?["timestamp"] == "0001-01-02T00:00:00.000Z", "the day after is a time: \(first)")
        // Days are counted as RFC 3339 counts them (proleptic Gregorian), not in Foundation's Julian before 1582.
        let early = try await relative.run(
            ["events", "add", "Nap", "--at", "1500-03-01 12:30", "--json"], extra: ["TZ": "UTC"])
        #expect(early.json?["timestamp"] == "1500-03-01T12:30:00.000Z", "\(early)")
        let earlyId = try #require(early.json?["id"]?.stringValue)
        let shownEarly = try await relative.run(["events", "show", earlyId], extra: ["TZ": "UTC"])
        #expect(shownEarly.stdout.contains("1500-03-01 12:30"), "\(shownEarly.stdout)")
        #expect(try await relative.json("queue", "list").arrayValue?.count == 5, "a type and four events, no zero")
    }
}
