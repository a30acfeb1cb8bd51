import Foundation
import Models
import Synchronization
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The lost-edit scenarios, each through the built `trendyctl` on two or three devices of one account against
/// trendy-server on 127.0.0.1: every one ends with every device equal to the server, or with a visible dead letter
/// that converges after a retry or a discard (sync-engine §9, R4–R9, R11; api-v1 §7).
@Suite("No edit lost: trendyctl against trendy-server", .timeLimit(.minutes(2)))
struct NoEditLostTests {
    /// Runs `body` with a server and `count` devices of one account.
    func devices(
        _ count: Int = 2, on configuration: ServerConfiguration = serverConfiguration(tokens: Users.tokens),
        _ body: ([CLI]) async throws -> Void
    ) async throws {
        try await LiveTrendyServer.with(configuration) { server in
            let clis = try (0..<count).map { _ in try CLI(server: server.root.text, token: "alice-token") }
            try await body(clis)
        }
    }

    /// Syncs every device in turn, twice, and expects each to end `synced` with the same data.
    func expectConverged(_ clis: [CLI], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<2 {
            for cli in clis { _ = try await cli.run("sync") }
        }
        let reference = try await contents(clis[0])
        for cli in clis {
            let run = try await cli.run("sync", "--json")
            #expect(run.json?["outcome"] == "synced", "\(run)", sourceLocation: sourceLocation)
            #expect(try await contents(cli) == reference, sourceLocation: sourceLocation)
            #expect(try await cli.json("status")["owed"] == 0, sourceLocation: sourceLocation)
        }
    }

    /// Types, events and geofences as the CLI prints them, without the sync status.
    func contents(_ cli: CLI) async throws -> [String] {
        var rows: [String] = []
        for noun in ["types", "events", "geofences"] {
            for entity in try await cli.json(noun, "list").arrayValue ?? [] {
                guard case .object(var members) = entity else { continue }
                members["sync_status"] = nil
                rows.append("\(noun) \(JSONText.string(.object(members)))")
            }
        }
        return rows.sorted()
    }

    func id(_ value: JSONValue) throws -> String { try #require(value["id"]?.stringValue) }

    @Test("R6 two devices rename two types offline to one name: the loser's edit is a dead letter, discard converges")
    func renamesToOneName() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            _ = try await a.json("types", "add", "Coffee")
            _ = try await a.json("types", "add", "Tea")
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            _ = try await a.json("types", "edit", "Coffee", "--name", "Drinks")
            _ = try await b.json("types", "edit", "Tea", "--name", "Drinks")
            #expect(try await a.json("sync")["outcome"] == "synced")
            let lost = try await b.run("sync", "--json")
            #expect(lost.status == 5 && lost.json?["outcome"] == "partial", "\(lost)")
            let dead = try #require(try await b.json("queue", "list").arrayValue?.first)
            #expect(dead["state"] == "failed" && dead["last_error"]?.stringValue?.hasPrefix("conflict:") == true)
            #expect(try await b.json("types", "list").arrayValue?.map { $0["name"] } == ["Drinks", "Drinks"])

            #expect(try await b.json("queue", "discard", "--all") == ["discarded": 1])
            try await expectConverged(clis)
            #expect(Set(try await b.json("types", "list").arrayValue?.map { $0["name"] } ?? []) == ["Drinks", "Tea"])
        }
    }

    @Test("R7 an event moved into a type that is then deleted before a sync is gone on the server too")
    func moveThenDeleteType() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            _ = try await a.json("types", "add", "Coffee")
            _ = try await a.json("types", "add", "Tea")
            let event = try id(try await a.json("events", "add", "Coffee"))
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            _ = try await a.json("events", "edit", event, "--type", "Tea")
            #expect(try await a.run("types", "rm", "Tea", "--yes").status == 0)
            #expect(try await a.json("sync")["outcome"] == "synced")
            try await expectConverged(clis)
            #expect(try await b.json("events", "list") == [], "the server's copy under Coffee went with the move")
        }
    }

    @Test("R8 a geofence edit queued while another device deletes its entry type: queue retry succeeds")
    func geofenceEditAfterTypeDeleted() async throws {
        let failing = Mutex(false)
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.testHooks.scriptedFault = { method, path in
            method == "PUT" && path.hasPrefix("/api/v1/geofences/") && failing.withLock { $0 } ? .internalError : nil
        }
        try await devices(on: configuration) { clis in
            let (a, b) = (clis[0], clis[1])
            _ = try await a.json("types", "add", "Walk")
            let fence = try id(
                try await a.json("geofences", "add", "Park", "--lat", "1", "--lon", "2", "--entry-type", "Walk"))
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            _ = try await a.json("geofences", "edit", fence, "--radius", "250")
            #expect(try await b.run("types", "rm", "Walk", "--yes").status == 0)
            _ = try await b.json("sync")

            // The edit fails until it is a dead letter; meanwhile the pull removed the type it named.
            failing.withLock { $0 = true }
            for _ in 0..<5 { _ = try await a.run("sync") }
            failing.withLock { $0 = false }
            let dead = try #require(try await a.json("queue", "list").arrayValue?.first)
            #expect(dead["state"] == "failed")

            #expect(try await a.json("queue", "retry", "--all") == ["retried": 1])
            #expect(try await a.json("sync")["outcome"] == "synced")
            try await expectConverged(clis)
            let shown = try await b.json("geofences", "show", fence)
            #expect(shown["radius"] == 250 && shown["event_type_entry_id"] == nil)
        }
    }

    @Test("api-v1 §7 restores: an event deleted, then imported from an earlier export, is back everywhere")
    func restoreByImport() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            _ = try await a.json("types", "add", "Coffee")
            let event = try id(try await a.json("events", "add", "Coffee", "--notes", "keep me"))
            _ = try await a.json("sync")
            let backup = a.home.appendingPathComponent("backup.json").path
            #expect(try await a.run("export", "--output", backup).status == 0)
            _ = try await b.json("sync")
            _ = try await a.json("events", "rm", event)
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            #expect(try await b.json("events", "list") == [])

            #expect(try await a.run("import", backup).status == 0)
            #expect(try await a.json("sync")["outcome"] == "synced")
            try await expectConverged(clis)
            #expect(try await b.json("events", "show", event)["notes"] == "keep me")
        }
    }

    @Test("R9 queue discard of an update and of a delete: the next sync restores the server's copies")
    func discardsRestore() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            _ = try await a.json("types", "add", "Coffee")
            let edited = try id(try await a.json("events", "add", "Coffee", "--notes", "server", "--at", "2026-01-01"))
            let removed = try id(try await a.json("events", "add", "Coffee", "--at", "2026-01-02"))
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            _ = try await a.json("events", "edit", edited, "--notes", "local")
            _ = try await a.json("events", "rm", removed)
            #expect(try await a.json("queue", "discard", "--all") == ["discarded": 2])
            #expect(try await a.json("status")["owed"] == 2)
            #expect(try await a.json("sync")["outcome"] == "synced")
            #expect(try await a.json("events", "show", edited)["notes"] == "server")
            #expect(try await a.json("events", "show", removed)["id"]?.stringValue == removed)
            try await expectConverged(clis)
        }
    }

    @Test("R11 a bootstrap while another device deletes events misses no unchanged event")
    func bootstrapRacingDeletes() async throws {
        let listings = RequestCounter()
        let armed = Mutex(false)
        let held = CallGate()
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.testHooks.beforeHandler = { method, path in
            // The fresh device's second page waits until the other device's deletes are in.
            guard method == "GET", path == "/api/v1/events", armed.withLock({ $0 }) else { return }
            if listings.increment() == 2 { _ = await held.pass() }
        }
        try await devices(3, on: configuration) { clis in
            let (a, b, fresh) = (clis[0], clis[1], clis[2])
            // The fresh device lists events 50 a page (the standard profile), so 300 events take six pages.
            #expect(try await fresh.run("config", "set", "sync.profile", "standard").status == 0)
            _ = try await a.json("types", "add", "Coffee")
            let file = a.home.appendingPathComponent("events.json")
            try Self.exportDocument(events: 300, typeId: try id(try await a.json("types", "show", "Coffee")))
                .write(to: file)
            #expect(try await a.run("import", file.path).status == 0)
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            armed.withLock { $0 = true }
            let sync = try await ChildProcess.start("trendyctl", ["sync", "--json"], environment: fresh.environment)
            await held.waitForArrivals(1)
            // The newest events are on the fresh device's first page: deleting them shifts every later offset.
            let newest = try #require(try await b.json("events", "list", "--limit", "30").arrayValue)
            #expect(try await b.run(["events", "rm"] + newest.map { try id($0) }).status == 0)
            _ = try await b.json("sync")
            held.release()
            let result = await sync.result()
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            // Every event that existed for the whole listing is on the fresh device.
            let listed = Set(try await fresh.json("events", "list").arrayValue?.map { try id($0) } ?? [])
            let unchanged = Set(try await b.json("events", "list").arrayValue?.map { try id($0) } ?? [])
            #expect(unchanged.count == 270 && unchanged.isSubset(of: listed))
            try await expectConverged(clis)
        }
    }

    @Test("sync --watch waits while a one-off sync holds the lock and goes on; another one-off gives up after 2 s")
    func watchWaitsForTheLock() async throws {
        let held = CallGate()
        let pulls = RequestCounter()
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.testHooks.beforeHandler = { method, path in
            guard method == "GET", path == "/api/v1/changes" else { return }
            if pulls.increment() == 1 { _ = await held.pass() }
        }
        try await devices(1, on: configuration) { clis in
            let cli = clis[0]
            _ = try await cli.json("types", "add", "Coffee")
            _ = try await cli.json("sync")  // bootstrap: no feed request
            _ = try await cli.json("events", "add", "Coffee")
            let oneOff = try await ChildProcess.start("trendyctl", ["sync", "--json"], environment: cli.environment)
            await held.waitForArrivals(1)  // it holds the lock, its pull held in the server

            let another = try await cli.run("sync", "--json")
            #expect(another.status == 75 && another.stderr.contains("another sync is running"), "\(another)")
            let watch = try await ChildProcess.start(
                "trendyctl", ["sync", "--watch", "--interval", "3600", "--json"], environment: cli.environment)
            try await waitUntil("the watcher says it waits for the lock") {
                watch.stderrSoFar.contains("another sync is running")
            }
            held.release()
            #expect(await oneOff.result().status == 0)
            let line = try #require(await watch.firstLine(), "the watcher ran its round after the lock was free")
            #expect((try? JSONText.parse(line))?["outcome"] == "synced", "\(line)")
            watch.send(SIGINT)
            let watched = await watch.result()
            #expect(watched.status == 130 && watched.stderr.contains("another sync is running"), "\(watched.stderr)")
        }
    }

    @Test("R4 R5 a replayed update or create whose answer is older than a later edit on another device converges")
    func replayOlderThanALaterEdit() async throws {
        // Per path: the first write of device a is committed but unanswered; its re-send fails once (while its pull
        // fences b's later edit); the next re-send is replayed from the idempotency record.
        let script = Mutex<[String: [ServerConfiguration.ScriptedFault?]]>([:])
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.testHooks.scriptedFault = { method, path in
            script.withLock { script in
                let key = "\(method) \(path)"
                guard var queue = script[key], !queue.isEmpty else { return nil }
                let next = queue.removeFirst()
                script[key] = queue
                return next
            }
        }
        try await devices(on: configuration) { clis in
            let (a, b) = (clis[0], clis[1])
            let type = try id(try await a.json("types", "add", "Coffee", "--icon", "cup"))
            _ = try await a.json("sync")
            _ = try await b.json("sync")

            script.withLock { $0["PUT /api/v1/event-types/\(type)"] = [.drop, nil, .internalError] }
            _ = try await a.json("types", "edit", "Coffee", "--icon", "mug")
            #expect(try await a.run("sync").status == 75, "the answer was lost")
            _ = try await b.json("types", "edit", "Coffee", "--icon", "glass")
            #expect(try await b.json("sync")["outcome"] == "synced")
            #expect(try await a.run("sync").status == 5, "the re-send failed; b's entry was fenced")
            #expect(try await a.json("status")["owed"] == 1)
            #expect(try await a.json("sync")["outcome"] == "synced", "the replay, then the read-back")
            #expect(try await a.json("types", "show", type)["icon"] == "glass")

            script.withLock { $0["POST /api/v1/event-types"] = [.drop, .internalError] }
            let tea = try id(try await a.json("types", "add", "Tea"))
            #expect(try await a.run("sync").status == 75)
            _ = try await b.json("sync")
            _ = try await b.json("types", "edit", tea, "--name", "Green tea")
            _ = try await b.json("sync")
            #expect(try await a.run("sync").status == 5)
            #expect(try await a.json("sync")["outcome"] == "synced")
            #expect(try await a.json("types", "show", tea)["name"] == "Green tea")
            try await expectConverged(clis)
        }
    }

    @Test("two trendyctl processes editing different fields of one event at once: both exit 0, both edits stay")
    func concurrentLocalEdits() async throws {
        try await devices(1) { clis in
            let cli = clis[0]
            _ = try await cli.json("types", "add", "Coffee")
            let event = try id(try await cli.json("events", "add", "Coffee"))
            _ = try await cli.json("sync")
            for round in 0..<40 {
                async let notes = cli.run("events", "edit", event, "--notes", "n\(round)")
                async let property = cli.run("events", "edit", event, "--prop", "cups=\(round)")
                let (first, second) = try await (notes, property)
                #expect(first.status == 0 && second.status == 0, "\(first) \(second)")
                let shown = try await cli.json("events", "show", event)
                #expect(shown["notes"]?.stringValue == "n\(round)", "round \(round): \(shown)")
                #expect(shown["properties"]?["cups"]?["value"] == .number(Double(round)), "round \(round): \(shown)")
            }
            let queued = try #require(try await cli.json("queue", "list").arrayValue)
            #expect(queued.count == 1 && queued.first?["operation"] == "update", "the edits merged into one update")
            #expect(try await cli.json("sync")["outcome"] == "synced")
            let pushed = try await cli.json("events", "show", event)
            #expect(pushed["notes"] == "n39" && pushed["properties"]?["cups"]?["value"] == .number(39))
        }
    }

    /// An export document with `events` events of one type, a minute apart.
    static func exportDocument(events count: Int, typeId: String) throws -> Data {
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        let events = (0..<count).map { index -> JSONValue in
            .object([
                "id": .string(UUIDv7.generate(at: start.addingTimeInterval(Double(index)))),
                "event_type_id": .string(typeId),
                "timestamp": .string(RFC3339.string(from: start.addingTimeInterval(Double(index) * 60))),
                "is_all_day": .bool(false), "source_type": .string("manual"), "properties": .object([:]),
                "sync_status": .string("pending"),
            ])
        }
        let document: JSONValue = [
            "format": "trendy-export", "version": 1, "events": .array(events),
        ]
        return Data(JSONText.string(document).utf8)
    }
}
