import Foundation
import Models
import Synchronization
import Testing
import TrendyServerTesting

@testable import TrendyCLI

/// Every local command through the binary. The server setting points at a stub that records requests, to prove
/// that local commands never touch the network.
@Suite("trendyctl local commands")
struct LocalCommandTests {
    /// Runs `body` with a CLI whose server is a recording stub; afterwards the stub must have seen nothing.
    func offline(_ body: (CLI) async throws -> Void) async throws {
        let requests = RequestCounter()
        let handler: StubHTTPServer.Handler = { _ in
            requests.increment()
            return StubHTTPServer.Reply(status: 500)
        }
        try await StubHTTPServer.with(handler) { stub in
            let cli = try CLI(server: stub.root.text, token: "unused")
            try await body(cli)
        }
        #expect(requests.value == 0, "a local command sent a request")
    }

    @Test("types: add, list, show by name or id, edit, rm — with the --json shapes of trendyctl §1.4")
    func types() async throws {
        try await offline { cli in
            let added = try await cli.json("types", "add", "Coffee", "--color", "#8B4513", "--icon", "cup")
            #expect(added.keys == ["color", "created_at", "icon", "id", "name", "sync_status"])
            #expect(added["name"] == "Coffee" && added["color"] == "#8B4513" && added["sync_status"] == "pending")
            let id = try #require(added["id"]?.stringValue)
            #expect(UUIDText.isCanonical(id))

            #expect(try await cli.json("types", "list").arrayValue?.map { $0["id"] } == [.string(id)])
            #expect(
                try await cli.json("types", "show", "coffee")["id"] == .string(id), "names match case-insensitively")
            #expect(try await cli.json("types", "show", id)["name"] == "Coffee")
            let edited = try await cli.json("types", "edit", "Coffee", "--name", "Espresso")
            #expect(edited["name"] == "Espresso" && edited["id"] == .string(id))

            let human = try await cli.run("types", "list")
            #expect(human.status == 0 && human.lines.count == 2 && human.lines[0].hasPrefix("ID"))
            #expect(human.lines[1].contains("Espresso") && !human.stdout.contains("\u{1B}"), "no colour off a terminal")

            _ = try await cli.json("events", "add", "Espresso")
            let removed = try await cli.json("types", "rm", "Espresso")
            #expect(removed == ["deleted": [.string(id)]])
            #expect(try await cli.json("events", "list") == [])
        }
    }

    @Test("events: add with every option, list filters, show, edit clears, rm several")
    func events() async throws {
        try await offline { cli in
            let type = try #require(try await cli.json("types", "add", "Run")["id"]?.stringValue)
            _ = try await cli.json("props", "add", "Run", "km", "--label", "Distance", "--kind", "number")
            let first = try await cli.json(
                "events", "add", "run", "--at", "2026-11-20T07:30:00+01:00", "--end", "2026-11-20 07:10",
                "--notes", "river", "--prop", "km=5.5", "--prop", "mood=good", "--lat", "52.5", "--lon", "13.4",
                "--location-name", "Park", "--external-id", "ext-1", "--title", "Morning run")
            #expect(
                first.keys == [
                    "end_date", "event_type_id", "external_id", "id", "is_all_day", "location_latitude",
                    "location_longitude", "location_name", "notes", "original_title", "properties", "source_type",
                    "sync_status", "timestamp",
                ])
            #expect(first["timestamp"] == "2026-11-20T06:30:00.000Z" && first["end_date"] == "2026-11-20T07:10:00.000Z")
            #expect(first["event_type_id"] == .string(type) && first["source_type"] == "manual")
            #expect(
                first["properties"] == [
                    "km": ["type": "number", "value": 5.5], "mood": ["type": "text", "value": "good"],
                ])
            let firstId = try #require(first["id"]?.stringValue)
            let second = try #require(
                try await cli.json("events", "add", "Run", "--at", "2026-11-21", "--all-day")["id"]?.stringValue)
            let third = try #require(try await cli.json("events", "add", type, "--at", "now")["id"]?.stringValue)

            #expect(
                try await cli.json("events", "list").arrayValue?.compactMap { $0["id"]?.stringValue } == [
                    third, second, firstId,
                ])
            let window = try await cli.json("events", "list", "--since", "2026-11-20", "--until", "2026-11-21 00:00")
            #expect(window.arrayValue?.compactMap { $0["id"]?.stringValue } == [second, firstId])
            #expect(try await cli.json("events", "list", "--limit", "1").arrayValue?.count == 1)
            #expect(try await cli.json("events", "list", "--status", "synced") == [])
            let table = try await cli.run("events", "list")
            #expect(table.lines.count == 4 && table.lines[0].hasPrefix("ID") && table.lines[3].hasSuffix("river"))
            #expect(table.lines.allSatisfy { !$0.hasSuffix(" ") }, "no trailing spaces (no notes): \(table)")

            let edited = try await cli.json(
                "events", "edit", firstId, "--clear-notes", "--unset-prop", "mood", "--clear-location", "--no-all-day")
            #expect(
                edited["notes"] == nil && edited["location_latitude"] == nil && edited["properties"]?.keys == ["km"])
            #expect(try await cli.json("events", "show", firstId) == edited)
            let contradiction = try await cli.run("events", "edit", firstId, "--prop", "km=3", "--unset-prop", "km")
            #expect(
                contradiction.status == 64 && contradiction.stderr.contains("exclude each other"), "\(contradiction)")
            #expect(try await cli.json("events", "show", firstId) == edited, "nothing was changed")

            // An id given twice, once in upper case, is one event: deleted once, exit 0 (it used to fail on the
            // second).
            let removed = try await cli.json("events", "rm", second, third, second.uppercased())
            #expect(removed == ["deleted": [.string(second), .string(third)]])
            #expect(try await cli.json("events", "list").arrayValue?.count == 1)
        }
    }

    @Test("geofences and property definitions: add, list, show, edit, rm")
    func geofencesAndProps() async throws {
        try await offline { cli in
            _ = try await cli.json("types", "add", "Work")
            let fence = try await cli.json(
                "geofences", "add", "Office", "--lat", "52.52", "--lon", "13.405", "--radius", "150", "--entry-type",
                "Work", "--notify-entry")
            #expect(
                fence.keys == [
                    "created_at", "event_type_entry_id", "id", "is_active", "latitude", "longitude", "name",
                    "notify_on_entry", "notify_on_exit", "radius", "sync_status",
                ])
            let fenceId = try #require(fence["id"]?.stringValue)
            let edited = try await cli.json(
                "geofences", "edit", fenceId, "--inactive", "--radius", "200", "--no-notify-entry")
            #expect(edited["is_active"] == false && edited["radius"] == 200 && edited["notify_on_entry"] == false)
            #expect(try await cli.json("geofences", "list").arrayValue?.count == 1)
            #expect(try await cli.json("geofences", "show", fenceId)["name"] == "Office")
            #expect(try await cli.json("geofences", "rm", fenceId) == ["deleted": [.string(fenceId)]])

            let definition = try await cli.json(
                "props", "add", "Work", "mode", "--label", "Mode", "--kind", "select", "--option", "remote",
                "--option", "office", "--default", "office", "--order", "2")
            #expect(
                definition.keys == [
                    "created_at", "default_value", "display_order", "event_type_id", "id", "key", "label", "options",
                    "property_type", "sync_status", "updated_at",
                ])
            #expect(definition["options"] == ["remote", "office"] && definition["default_value"] == "office")
            let definitionId = try #require(definition["id"]?.stringValue)
            let relabelled = try await cli.json("props", "edit", definitionId, "--label", "Where")
            #expect(relabelled["label"] == "Where" && relabelled["display_order"] == 2)
            #expect(try await cli.json("props", "list", "Work").arrayValue?.count == 1)
            let refused = try await cli.run("events", "add", "Work", "--prop", "mode=beach")
            #expect(refused.status == 64 && refused.stderr.contains("remote, office"), "\(refused)")
            // A new kind or new choices: the choices go with the select; a kept default must fit, or is refused.
            let misfit = try await cli.run("props", "edit", definitionId, "--kind", "number")
            #expect(misfit.status == 64 && misfit.stderr.contains("--clear-default"), "\(misfit)")
            let renamed = try await cli.run("props", "edit", definitionId, "--option", "home", "--option", "away")
            #expect(renamed.status == 64 && renamed.stderr.contains("home, away"), "\(renamed)")
            let unchanged = try await cli.json("props", "list", "Work").arrayValue?.first
            #expect(unchanged?["options"] == ["remote", "office"] && unchanged?["property_type"] == "select")
            let text = try await cli.json("props", "edit", definitionId, "--kind", "text")
            #expect(text["options"] == nil && text["default_value"] == "office", "\(text)")
            let number = try await cli.json("props", "edit", definitionId, "--kind", "number", "--default", "3")
            #expect(number["property_type"] == "number" && number["default_value"] == 3)
            let duration = try await cli.json("props", "edit", definitionId, "--kind", "duration")
            #expect(duration["default_value"] == 3, "a number default fits a duration")
            #expect(try await cli.json("props", "rm", definitionId) == ["deleted": [.string(definitionId)]])
        }
    }

    @Test("status, queue and history read the local database; queue retry and discard need ids or --all")
    func statusQueueHistory() async throws {
        try await offline { cli in
            _ = try await cli.json("types", "add", "Tea")
            let status = try await cli.json("status")
            #expect(
                status.keys == [
                    "circuit_breaker", "cursor", "failed", "last_sync_at", "owed", "pending", "server", "state",
                ])
            #expect(status["pending"] == 1 && status["failed"] == 0 && status["owed"] == 0 && status["state"] == "idle")
            #expect(
                status["last_sync_at"] == .null
                    && status["circuit_breaker"] == ["open": false, "retry_after_seconds": 0])

            let queue = try #require(try await cli.json("queue", "list").arrayValue)
            #expect(queue.count == 1)
            #expect(
                queue.first?.keys == [
                    "attempts", "created_at", "entity_id", "entity_type", "id", "last_error", "operation", "state",
                ])
            #expect(queue.first?["operation"] == "create" && queue.first?["state"] == "pending")
            #expect(try await cli.json("history") == [])

            #expect(try await cli.run("queue", "retry").status == 64)
            let notFailed = try await cli.run("queue", "retry", try #require(queue.first?["id"]?.stringValue))
            #expect(notFailed.status == 1 && notFailed.stderr.contains("has not failed"))
            let change = try #require(queue.first?["id"]?.stringValue)
            #expect(
                try await cli.json("queue", "discard", change, change.uppercased()) == ["discarded": 1],
                "an id given twice, in either case, is one change")
            #expect(try await cli.json("status")["pending"] == 0)
            // R9: a create never sent leaves with its row: the server never heard of it.
            #expect(try await cli.json("types", "list") == [])
        }
    }

    @Test("TIME accepts RFC 3339, dates, local date-times and now; anything else is a usage error")
    func timeFormats() async throws {
        try await offline { cli in
            _ = try await cli.json("types", "add", "Nap")
            let local = try await cli.run(
                ["events", "add", "Nap", "--at", "2026-11-21 14:05", "--json"], extra: ["TZ": "Europe/Berlin"])
            #expect(local.json?["timestamp"] == "2026-11-21T13:05:00.000Z", "local time in TZ: \(local)")
            #expect(
                try await cli.json("events", "add", "Nap", "--at", "2026-11-19")["timestamp"]
                    == "2026-11-19T00:00:00.000Z")
            for bad in ["the day before", "2026-02-30", "2026-11-21 25:00", "21/11/2026", "-7y"] {
                let run = try await cli.run("events", "add", "Nap", "--at", bad)
                #expect(run.status == 64 && run.stderr.contains("RFC 3339"), "\(bad): \(run)")
            }
        }
    }

    @Test("text over the server's byte limits is refused at once with the limit, before anything is written")
    func textLimits() async throws {
        try await offline { cli in
            _ = try await cli.json("types", "add", "Nap")
            let notes = String(repeating: "n", count: TextLimit.notesBytes + 1)
            let refused = try await cli.run("events", "add", "Nap", "--notes", notes)
            #expect(refused.status == 64 && refused.stderr.contains("\(TextLimit.notesBytes) bytes"), "\(refused)")
            let name = try await cli.run("types", "add", String(repeating: "t", count: TextLimit.otherBytes + 1))
            #expect(name.status == 64 && name.stderr.contains("name"), "\(name)")
            #expect(try await cli.json("events", "list") == [])
            #expect(try await cli.json("types", "list").arrayValue?.count == 1)
        }
    }

    @Test(
        "TYPE by name: an unknown name lists the known ones; a name two types share asks for an id, unless one is spelt so"
    )
    func typeResolution() async throws {
        try await offline { cli in
            let upper = try #require(try await cli.json("types", "add", "Coffee")["id"]?.stringValue)
            let lower = try #require(try await cli.json("types", "add", "coffee")["id"]?.stringValue)
            let ambiguous = try await cli.run("events", "add", "COFFEE")
            #expect(ambiguous.status == 64 && ambiguous.stderr.contains("use an id"), "\(ambiguous)")
            #expect(try await cli.json("events", "add", "Coffee")["event_type_id"]?.stringValue == upper)
            #expect(try await cli.json("events", "add", "coffee")["event_type_id"]?.stringValue == lower)
            let unknown = try await cli.run("events", "add", "Tea", "--json")
            #expect(unknown.status == 1 && unknown.stdout.isEmpty)
            #expect(unknown.errorJSON?["error"]?["code"] == "not_found")
            #expect(unknown.errorJSON?["error"]?["message"]?.stringValue?.contains("Coffee, coffee") == true)
        }
    }

    @Test("types rm at a terminal asks before deleting events: no keeps everything, yes deletes; --yes never asks")
    func removeAsksAtTerminal() async throws {
        let cli = try CLI()
        #expect(try await cli.run("types", "add", "Coffee").status == 0)
        #expect(try await cli.run("events", "add", "Coffee").status == 0)
        let declined = try await cli.runAtTerminal(["types", "rm", "Coffee"], typing: "n\n")
        #expect(declined.status == 1 && declined.stdout.contains("Delete Coffee and its 1 event(s)? [y/N]"))
        #expect(declined.stdout.contains("nothing deleted; pass --yes"))
        #expect(try await cli.json("types", "list").arrayValue?.count == 1, "declined: the type and its event stay")
        let accepted = try await cli.runAtTerminal(["types", "rm", "Coffee"], typing: "y\n")
        #expect(accepted.status == 0 && accepted.stdout.contains("deleted Coffee and its 1 event(s)"))
        #expect(try await cli.json("types", "list").arrayValue?.isEmpty == true)

        #expect(try await cli.run("types", "add", "Tea").status == 0)
        #expect(try await cli.run("events", "add", "Tea").status == 0)
        let forced = try await cli.runAtTerminal(["types", "rm", "Tea", "--yes"], typing: "")
        #expect(forced.status == 0 && !forced.stdout.contains("[y/N]"), "\(forced)")
        #expect(try await cli.run("types", "add", "Milk").status == 0)
        #expect(try await cli.run("events", "add", "Milk").status == 0)
        let scripted = try await cli.run("types", "rm", "Milk")
        #expect(scripted.status == 0 && !scripted.stderr.contains("[y/N]"), "no terminal: scripts are not stopped")
    }

    @Test("colour: auto at a terminal, none with NO_COLOR, TERM=dumb or --color-output never; always forces it")
    func colourChoice() async throws {
        let cli = try CLI()
        #expect(try await cli.run("types", "add", "Coffee").status == 0)
        let escape = "\u{1B}["
        #expect(try await cli.runAtTerminal(["types", "list"], typing: "").stdout.contains(escape))
        #expect(
            !(try await cli.runAtTerminal(["types", "list", "--color-output", "never"], typing: "").stdout
                .contains(escape)))
        #expect(try await cli.run("types", "list", "--color-output", "always").stdout.contains(escape), "a pipe too")
        #expect(!(try await cli.run("types", "list").stdout.contains(escape)), "a pipe: no colour by default")
        let dumb = Console(
            json: false, verbosity: .normal, environment: ["TERM": "dumb"],
            terminals: .init(stdinIsTerminal: true, stdoutIsTerminal: true, stderrIsTerminal: true))
        #expect(!dumb.colors && !dumb.showsProgress && dumb.canAsk)
        let noColor = Console(
            json: false, verbosity: .normal, environment: ["NO_COLOR": "1"],
            terminals: .init(stdinIsTerminal: true, stdoutIsTerminal: true, stderrIsTerminal: true))
        #expect(!noColor.colors && noColor.showsProgress)
    }

    @Test("config: set, get, list, unset; unknown keys and bad values are usage errors")
    func config() async throws {
        let cli = try CLI()
        #expect(try await cli.run("config", "set", "server", "http://127.0.0.1:9").status == 0)
        #expect(try await cli.run("config", "set", "sync.interval", "120").status == 0)
        #expect(try await cli.run("config", "get", "server").stdout == "http://127.0.0.1:9\n")
        #expect(try await cli.json("config", "list") == ["server": "http://127.0.0.1:9", "sync.interval": "120"])
        let text = try String(contentsOfFile: cli.environment["TRENDY_CONFIG"] ?? "", encoding: .utf8)
        #expect(text.contains("server = \"http://127.0.0.1:9\"") && text.contains("[sync]\ninterval = 120"))
        #expect(try await cli.run("config", "unset", "sync.interval").status == 0)
        let missing = try await cli.run("config", "get", "sync.interval")
        #expect(missing.status == 1 && missing.stdout.isEmpty)
        #expect(try await cli.run("config", "set", "colour", "blue").status == 64)
        #expect(try await cli.run("config", "set", "server", "not a url").status == 64)
        let status = try await cli.json("status")
        #expect(status["server"] == "http://127.0.0.1:9", "the config file's server")
        let flag = try await cli.run("status", "--json", "--server", "http://127.0.0.1:7")
        #expect(flag.json?["server"] == "http://127.0.0.1:7", "a flag wins over the config file")
    }

    @Test("login --with-token stores stdin in a 0600 file and never prints it; logout removes it")
    func loginLogout() async throws {
        let cli = try CLI()
        let secret = "s3cr3t-token-value"
        #expect(try await cli.run("login").status == 64, "--with-token is required")
        #expect(try await cli.run("login", "--with-token", stdin: "  \n").status == 64)
        let login = try await cli.run("login", "--server", "http://127.0.0.1:9", "--with-token", stdin: secret + "\n")
        #expect(login.status == 0 && !login.stdout.contains(secret) && !login.stderr.contains(secret), "\(login)")
        let path = try #require(cli.environment["TRENDY_TOKEN_FILE"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == secret + "\n")
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(try await cli.run("config", "get", "server").stdout == "http://127.0.0.1:9\n")
        #expect(try await cli.json("logout") == ["removed": true])
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("usage errors exit 64 with a message; --json puts it on stderr as {\"error\": …}")
    func usageErrors() async throws {
        let cli = try CLI()
        for arguments in [
            ["events", "list", "--limit", "0"], ["types", "add"], ["events", "add", "X", "--lat", "1"],
            ["bogus"], ["types", "list", "--colour"], ["sync", "--interval", "5"],
        ] {
            let run = try await cli.run(arguments)
            #expect(run.status == 64 && run.stdout.isEmpty && !run.stderr.isEmpty, "\(arguments): \(run)")
        }
        let json = try await cli.run("types", "list", "--bogus", "--json")
        #expect(json.status == 64 && json.errorJSON?["error"]?["code"] == "usage", "\(json)")
    }

    @Test("unknown ids exit 1 and delete nothing")
    func unknownIds() async throws {
        try await offline { cli in
            _ = try await cli.json("types", "add", "Tea")
            let id = try #require(try await cli.json("events", "add", "Tea")["id"]?.stringValue)
            let missing = "0190f5c0-3f00-7a11-8b22-000000000404"
            for arguments in [
                ["events", "show", missing], ["events", "rm", id, missing], ["geofences", "show", missing],
                ["props", "edit", missing, "--label", "x"], ["queue", "discard", missing],
            ] {
                let run = try await cli.run(arguments)
                #expect(run.status == 1 && run.stderr.contains(missing), "\(arguments): \(run)")
            }
            #expect(try await cli.json("events", "list").arrayValue?.count == 1, "rm checked every id first")
        }
    }

    /// A device's first commands often start together (a watcher and a command, a script running several): each
    /// process finds the new database unmigrated. They used to fail with "table event_type already exists".
    @Test("commands started at once on a new database all succeed, and each one's write is kept")
    func concurrentFirstCommands() async throws {
        for _ in 0..<5 {
            let cli = try CLI()
            let names = (0..<6).map { "Type\($0)" }
            let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
                for name in names { group.addTask { try await cli.run("types", "add", name, "--json") } }
                return try await group.reduce(into: [CLI.Run]()) { $0.append($1) }
            }
            for run in runs { #expect(run.status == 0, "\(run)") }
            let listed = try await cli.json("types", "list").arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(listed?.sorted() == names)
        }
    }

    @Test("--help leads with examples; completion scripts are generated for bash, zsh and fish")
    func helpAndCompletions() async throws {
        let cli = try CLI()
        let help = try await cli.run("--help")
        #expect(help.status == 0)
        let overview = help.stdout.components(separatedBy: "USAGE:").first ?? ""
        #expect(overview.contains("Examples:") && overview.contains("trendyctl events add Coffee"))
        for shell in ["bash", "zsh", "fish"] {
            let script = try await cli.run("--generate-completion-script", shell)
            #expect(script.status == 0 && script.stdout.contains("trendyctl") && script.stdout.contains("events"))
        }
        #expect(try await cli.run("events", "add", "--help").stdout.contains("--prop"))
    }
}

/// Counts requests a stub received.
final class RequestCounter: Sendable {
    private let count = Mutex(0)
    /// Counts one more and returns the new count.
    @discardableResult func increment() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
    var value: Int { count.withLock { $0 } }
}
