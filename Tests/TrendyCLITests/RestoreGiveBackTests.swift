import Foundation
import Models
import Synchronization
import Testing
import TrendyServerTesting

/// docs/server.md "Backups and restores", end to end through the binaries: a backup, two devices that create, edit
/// different fields and delete (events, a type with its events, a definition) after it, a restore, and both devices
/// syncing again. The devices give back what the server lost (sync-engine R15, api-v1 §15), so the server and both
/// devices end as they were before the restore, and verified.
@Suite("A restore costs nothing a device still holds")
struct RestoreGiveBackTests {
    static let user = "0190f5c0-3f00-7a11-8b22-0000000000c7"

    enum Order: String, CaseIterable, CustomTestStringConvertible {
        case laptopFirst, phoneFirst, phoneOfflineUntilLater
        var testDescription: String { rawValue }
    }

    /// What a device holds, comparable across devices: every type, event and definition, without sync states.
    static func holdings(_ cli: CLI) async throws -> [String] {
        var lines: [String] = []
        for type in try await cli.json("types", "list").arrayValue ?? [] {
            let name = type["name"]?.stringValue ?? "?"
            lines.append("type \(type["id"]?.stringValue ?? "?") \(name) \(type["color"]?.stringValue ?? "")")
            for definition in try await cli.json("props", "list", name).arrayValue ?? [] {
                lines.append(
                    "prop \(definition["id"]?.stringValue ?? "?") \(definition["key"]?.stringValue ?? "")"
                        + " \(definition["label"]?.stringValue ?? "")")
            }
        }
        for event in try await cli.json("events", "list", "--limit", "1000").arrayValue ?? [] {
            lines.append(
                "event \(event["id"]?.stringValue ?? "?") \(event["event_type_id"]?.stringValue ?? "")"
                    + " \(event["timestamp"]?.stringValue ?? "") \(event["notes"]?.stringValue ?? "-")")
        }
        return lines.sorted()
    }

    static func id(_ json: JSONValue) throws -> String { try #require(json["id"]?.stringValue) }

    /// Where the server keeps its data, and how an operator backs it up and restores it (docs/server.md).
    struct Deployment {
        /// The storage flags of `trendy-server`.
        var storage: [String]
        var backUp: () async throws -> Void
        /// With the server stopped.
        var restore: () async throws -> Void
    }

    /// SQLite, with `trendy-server backup` and `restore`.
    static func sqlite(in folder: URL) -> Deployment {
        let database = folder.appendingPathComponent("server.sqlite").path
        let backup = folder.appendingPathComponent("backup.sqlite").path
        return Deployment(
            storage: ["--db", database],
            backUp: {
                let made = try await ChildProcess.run(
                    "trendy-server", ["backup", "--db", database, backup], environment: [:])
                #expect(made.status == 0, "\(made.stderr)")
            },
            restore: {
                let restored = try await ChildProcess.run(
                    "trendy-server", ["restore", "--db", database, backup], environment: [:])
                #expect(restored.status == 0, "\(restored.stderr)")
            })
    }

    /// PostgreSQL (a schema of its own), with `pg_dump` while serving, then `pg_restore --clean` and
    /// `trendy-server mark-restored` with the dump's time, as docs/server.md says.
    static func postgres(in folder: URL) throws -> Deployment {
        let url = try #require(LiveTrendyServer.postgresTestURL()).url
        var components = try #require(URLComponents(string: url))
        let schema = try #require(components.queryItems?.first { $0.name == "schema" }?.value)
        components.queryItems = components.queryItems?.filter { $0.name != "schema" }
        if components.queryItems?.isEmpty == true { components.queryItems = nil }
        let database = try #require(components.string)  // libpq's form: the schema is pg_dump's -n
        let dump = folder.appendingPathComponent("trendy.dump").path
        let takenAt = Mutex<Date?>(nil)
        return Deployment(
            storage: ["--postgres", url],
            backUp: {
                takenAt.withLock { $0 = Date() }
                let made = try await ChildProcess.run(
                    executable: postgresTool("pg_dump"), ["--format=custom", "-n", schema, "-f", dump, database],
                    environment: [:])
                #expect(made.status == 0, "\(made.stderr)")
            },
            restore: {
                let restored = try await ChildProcess.run(
                    executable: postgresTool("pg_restore"), ["--clean", "--if-exists", "-d", database, dump],
                    environment: [:])
                #expect(restored.status == 0, "\(restored.stderr)")
                let time = RFC3339.string(from: try #require(takenAt.withLock { $0 }))
                let marked = try await ChildProcess.run(
                    "trendy-server", ["mark-restored", "--postgres", url, "--backup-taken-at", time],
                    environment: [:])
                #expect(marked.status == 0, "\(marked.stderr)")
            })
    }

    /// A PostgreSQL client program of the installation scripts/with-postgres runs (its first version, as there).
    static func postgresTool(_ name: String) -> URL {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted() {
            let path = "/usr/lib/postgresql/\(version)/bin/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        return URL(fileURLWithPath: "/usr/bin/\(name)")
    }

    @Test(
        "R15 backup, writes on two devices, restore: both devices give back, end equal and verified",
        arguments: Order.allCases)
    func restoreAndGiveBack(_ order: Order) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("give-back-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await walk(order, Self.sqlite(in: folder))
    }

    @Test(
        "R15 on PostgreSQL: pg_dump, writes on two devices, pg_restore and mark-restored: both give back, end equal and verified",
        .requiresPostgreSQL, arguments: Order.allCases)
    func restoreAndGiveBackOnPostgres(_ order: Order) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("give-back-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await walk(order, try Self.postgres(in: folder))
    }

    /// The walk of docs/server.md: writes before and after a backup on two devices, a restore, both devices back in
    /// `order`; every device and a new one end with the state before the restore, verified.
    func walk(_ order: Order, _ deployment: Deployment) async throws {
        func start(port: Int) async throws -> ServerProcess {
            try await ServerProcess.start(["--port", "\(port)", "--token", "t:\(Self.user)"] + deployment.storage)
        }
        var server = try await start(port: 0)
        let port = try #require(URL(string: server.url)?.port)
        let laptop = try CLI(server: server.url, token: "t")
        let phone = try CLI(server: server.url, token: "t")

        // Before the backup: two types, a definition, three events, on both devices.
        _ = try await laptop.json("types", "add", "Coffee")
        _ = try await laptop.json("types", "add", "Walk")
        _ = try await laptop.json("props", "add", "Coffee", "size", "--label", "Size", "--kind", "text")
        let edited = try Self.id(
            try await laptop.json("events", "add", "Coffee", "--at", "2026-11-20T07:30:00Z", "--notes", "first"))
        _ = try await laptop.json("events", "add", "Walk", "--at", "2026-11-20T09:00:00Z")
        _ = try await laptop.json("events", "add", "Coffee", "--at", "2026-11-21T07:30:00Z")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")

        try await deployment.backUp()

        // After it: creates (a type and its event), edits of different fields, deletes of a type with its events and
        // of a definition, spread over both devices, and synced everywhere.
        _ = try await laptop.json("types", "add", "Tea")
        _ = try await laptop.json("events", "add", "Tea", "--at", "2026-11-22T16:00:00Z", "--notes", "green")
        _ = try await laptop.json("events", "edit", edited, "--notes", "edited on the laptop")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        _ = try await phone.json("events", "edit", edited, "--at", "2026-11-20T08:00:00Z")
        _ = try await phone.json("types", "rm", "Walk", "--yes")
        let size = try #require(try await phone.json("props", "list", "Coffee").arrayValue?.first)
        _ = try await phone.json("props", "rm", try Self.id(size))
        _ = try await phone.json("events", "add", "Coffee", "--at", "2026-11-23T07:00:00Z", "--notes", "phone")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        let before = try await Self.holdings(laptop)
        #expect(try await Self.holdings(phone) == before)
        #expect(before.contains { $0.contains("edited on the laptop") && $0.contains("2026-11-20T08:00:00") })

        #expect(await server.terminate() == 0)
        try await deployment.restore()
        server = try await start(port: port)
        defer { server.stop() }

        var expected = before
        switch order {
        case .laptopFirst, .phoneOfflineUntilLater:
            let sync = try await laptop.run("sync", "--json")
            #expect(sync.status == 0 && (sync.json?["given_back"]?.doubleValue ?? 0) > 0, "\(sync)")
            if order == .phoneOfflineUntilLater {
                // The laptop writes on the restored server before the phone comes back.
                let later = try Self.id(
                    try await laptop.json("events", "add", "Tea", "--at", "2026-11-24T16:00:00Z", "--notes", "later"))
                #expect(try await laptop.json("sync")["outcome"] == "synced")
                expected = try await Self.holdings(laptop)
                #expect(expected.count == before.count + 1 && expected.contains { $0.contains(later) })
            }
            #expect(try await phone.run("sync").status == 0)
        case .phoneFirst:
            let sync = try await phone.run("sync")
            #expect(sync.status == 0 && sync.stdout.contains("changes the server had lost"), "\(sync)")
            #expect(try await laptop.run("sync").status == 0)
        }
        #expect(try await Self.holdings(laptop) == expected)
        #expect(try await Self.holdings(phone) == expected)
        // The server holds it too: a new device gets exactly this.
        let fresh = try CLI(server: server.url, token: "t")
        #expect(try await fresh.json("sync")["outcome"] == "synced")
        #expect(try await Self.holdings(fresh) == expected)
        for device in [laptop, phone, fresh] {
            let verify = try await device.run("sync", "--verify")
            #expect(verify.status == 0, "\(verify)")
        }
        #expect(await server.terminate() == 0)
    }

    @Test("R15 docs/server.md's restore walk-through runs as written and ends with both devices verified")
    func walkThrough() async throws {
        let page = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/server.md"), encoding: .utf8)
        let marker = try #require(page.range(of: "<!-- restore-walkthrough -->\n```sh\n"))
        let end = try #require(page[marker.upperBound...].range(of: "```"))
        let script = "set -euo pipefail\n" + page[marker.upperBound..<end.lowerBound]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                "HOME": folder.path, "TZ": "UTC", "PORT": "\(try ReadmeTourTests.freePort())",
                "PATH": ServerProcess.productsDirectory.path + ":"
                    + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ], currentDirectory: folder)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("gave back 2 changes the server had lost"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "verified").count - 1 >= 2, "\(result.stdout)")
    }
}
