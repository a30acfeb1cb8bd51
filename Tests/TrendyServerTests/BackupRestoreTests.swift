import Foundation
import Models
import Testing
import TrendyServerTesting

/// `trendy-server backup`, `restore` and `mark-restored` through the binary, and the history every answer
/// announces (api-v1 §15).
@Suite("Backups and restores (api-v1 §15)")
struct BackupRestoreTests {
    static let user = "0190f5c0-3f00-7a11-8b22-0000000000b1"

    /// A folder of its own with the database path in it.
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-backup-\(UUID())")
        var database: String { url.appendingPathComponent("server.sqlite").path }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static func serve(_ database: String) async throws -> ServerProcess {
        try await ServerProcess.start(["--port", "0", "--db", database, "--token", "t:\(user)"])
    }

    static func history(_ server: ServerProcess) async throws -> ServerHistory {
        let health = try await RawHTTP.send("GET", server.url + "/health")
        return try #require(ServerHistory(header: health.header(ServerHistory.headerName)))
    }

    static func createType(_ server: ServerProcess, _ name: String) async throws -> String {
        let created = try await RawHTTP.send(
            "POST", server.url + "/api/v1/event-types", token: "t",
            body: Data(#"{"name":"\#(name)","color":"green","icon":"x"}"#.utf8))
        #expect(created.status == 201)
        return try #require(created.json?["id"] as? String)
    }

    static func status(_ server: ServerProcess, type id: String) async throws -> (Int, String?) {
        let answer = try await RawHTTP.send("GET", server.url + "/api/v1/event-types/\(id)", token: "t")
        let type = answer.json?["type"] as? String
        return (answer.status, type.map { String($0.split(separator: ":").last ?? "") })
    }

    static func tool(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run("trendy-server", arguments, environment: [:])
    }

    @Test(
        "api-v1 §15 backup while serving, restore while stopped: its data, a new history with its time, the old file kept"
    )
    func backupThenRestore() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let backupPath = folder.path("backup.sqlite")
        let server = try await Self.serve(folder.database)
        let first = try await Self.history(server)
        #expect(first.backupTakenAt == nil, "a new database's first history has no backup")
        let kept = try await Self.createType(server, "Before")
        let before = Date()
        let backup = try await Self.tool(["backup", "--db", folder.database, backupPath])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("backed up \(folder.database) to \(backupPath)"))
        #expect(!FileManager.default.fileExists(atPath: backupPath + ".partial"))
        let lost = try await Self.createType(server, "After")
        #expect(try await Self.history(server) == first, "a backup does not change the history served")

        let refused = try await Self.tool(["restore", "--db", folder.database, backupPath])
        #expect(refused.status == 75 && refused.stderr.contains("stop it first"), "\(refused.stderr)")
        #expect(try await Self.status(server, type: lost).0 == 200, "a refused restore changed nothing")
        #expect(await server.terminate() == 0)

        let restore = try await Self.tool(["restore", "--db", folder.database, backupPath])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("the replaced database is kept at \(folder.database).before-restore"))
        let restored = try await Self.serve(folder.database)
        defer { restored.stop() }
        let second = try await Self.history(restored)
        #expect(second.id != first.id)
        let taken = try #require(second.backupTakenAt)
        #expect(abs(taken.timeIntervalSince(before)) < 60, "the backup's time is announced")
        #expect(try await Self.status(restored, type: kept).0 == 200)
        let lostStatus = try await Self.status(restored, type: lost)
        #expect(lostStatus == (404, "not_found"), "written after the backup: \(lostStatus)")
        let feed = try await RawHTTP.send("GET", restored.url + "/api/v1/changes?since=0", token: "t")
        #expect(feed.header(ServerHistory.headerName) == second.header, "every answer names the history")
        #expect(await restored.terminate() == 0)

        // The replaced database is whole and holds what the restore replaced.
        let old = try await Self.serve(folder.database + ".before-restore")
        defer { old.stop() }
        #expect(try await Self.status(old, type: lost).0 == 200)
        #expect(try await Self.history(old) == first)
        #expect(await old.terminate() == 0)
    }

    @Test("api-v1 §15 a backup file put in place by hand starts its new history too; served again, it keeps it")
    func backupCopiedByHand() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let backupPath = folder.path("backup.sqlite")
        let server = try await Self.serve(folder.database)
        let first = try await Self.history(server)
        _ = try await Self.createType(server, "Kept")
        #expect(try await Self.tool(["backup", "--db", folder.database, backupPath]).status == 0)
        #expect(await server.terminate() == 0)
        let other = folder.path("copied.sqlite")
        try FileManager.default.copyItem(atPath: backupPath, toPath: other)
        let copied = try await Self.serve(other)
        let second = try await Self.history(copied)
        #expect(second.id != first.id && second.backupTakenAt != nil)
        #expect(await copied.terminate() == 0)
        let again = try await Self.serve(other)
        defer { again.stop() }
        #expect(try await Self.history(again) == second, "the history begins once")
        #expect(await again.terminate() == 0)
    }

    @Test(
        "api-v1 §15 one backup put back twice starts two histories, by restore and by hand: a device that met one sees the next"
    )
    func sameBackupTwice() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let backupPath = folder.path("backup.sqlite")
        let server = try await Self.serve(folder.database)
        _ = try await Self.createType(server, "Kept")
        #expect(try await Self.tool(["backup", "--db", folder.database, backupPath]).status == 0)
        #expect(await server.terminate() == 0)
        var seen: [ServerHistory] = []
        for _ in 0..<2 {
            let restore = try await Self.tool(["restore", "--db", folder.database, backupPath])
            #expect(restore.status == 0, "\(restore.stderr)")
            let restored = try await Self.serve(folder.database)
            seen.append(try await Self.history(restored))
            #expect(await restored.terminate() == 0)
        }
        for _ in 0..<2 {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.database + suffix) }
            try FileManager.default.copyItem(atPath: backupPath, toPath: folder.database)
            let copied = try await Self.serve(folder.database)
            seen.append(try await Self.history(copied))
            #expect(await copied.terminate() == 0)
        }
        #expect(Set(seen.map(\.id)).count == 4, "\(seen.map(\.id))")
        #expect(seen.allSatisfy { $0.backupTakenAt != nil }, "each announces the backup's time")
    }

    @Test(
        "api-v1 §15 mark-restored starts a new history, with the backup time given or none; bad input changes nothing")
    func markRestored() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let server = try await Self.serve(folder.database)
        let first = try await Self.history(server)
        let busy = try await Self.tool(["mark-restored", "--db", folder.database])
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(await server.terminate() == 0)

        let badTime = try await Self.tool(["mark-restored", "--db", folder.database, "--backup-taken-at", "yesterday"])
        #expect(badTime.status == 64 && badTime.stderr.contains("RFC 3339"), "\(badTime.stderr)")
        let marked = try await Self.tool([
            "mark-restored", "--db", folder.database, "--backup-taken-at", "2026-11-27T03:00:00Z",
        ])
        #expect(marked.status == 0, "\(marked.stderr)")
        let restarted = try await Self.serve(folder.database)
        defer { restarted.stop() }
        let second = try await Self.history(restarted)
        #expect(second.id != first.id)
        #expect(second.backupTakenAt == RFC3339.date(from: "2026-11-27T03:00:00Z"))
        #expect(marked.stdout.contains(second.id))
        #expect(await restarted.terminate() == 0)
    }

    @Test("api-v1 §15 restore refuses what is not a whole trendy-server database, and replaces nothing")
    func restoreRefusesBadFiles() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let server = try await Self.serve(folder.database)
        let kept = try await Self.createType(server, "Kept")
        #expect(await server.terminate() == 0)
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let text = folder.path("notes.txt")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: text))
        let cases: [(String, Int32, String)] = [
            (folder.path("absent.sqlite"), 66, "does not exist"), (text, 65, "damaged"),
        ]
        for (path, status, words) in cases {
            let result = try await Self.tool(["restore", "--db", folder.database, path])
            #expect(result.status == status && result.stderr.contains(words), "\(path): \(result.stderr)")
        }
        let postgres = try await Self.tool(["backup", "--postgres", "postgres://x@127.0.0.1/x", folder.path("b")])
        #expect(postgres.status == 64 && postgres.stderr.contains("pg_dump"), "\(postgres.stderr)")
        let again = try await Self.serve(folder.database)
        defer { again.stop() }
        #expect(try await Self.status(again, type: kept).0 == 200)
        #expect(!FileManager.default.fileExists(atPath: folder.database + ".before-restore"))
        #expect(await again.terminate() == 0)
    }

    @Test(
        "api-v1 §15 PostgreSQL: instances announce one history; mark-restored after pg_restore starts the next, with its time",
        .requiresPostgreSQL)
    func markRestoredOnPostgres() async throws {
        let url = try #require(LiveTrendyServer.postgresTestURL()).url
        let arguments = ["--port", "0", "--postgres", url, "--token", "t:\(Self.user)"]
        let (first, second) = (try await ServerProcess.start(arguments), try await ServerProcess.start(arguments))
        let history = try await Self.history(first)
        #expect(try await Self.history(second) == history, "one database, one history")
        #expect(await first.terminate() == 0)
        #expect(await second.terminate() == 0)
        let marked = try await Self.tool([
            "mark-restored", "--postgres", url, "--backup-taken-at", "2026-11-27T03:00:00.250Z",
        ])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(!marked.stdout.contains(url) || !url.contains("@"), "the password is not printed")
        let restarted = try await ServerProcess.start(arguments)
        defer { restarted.stop() }
        let next = try await Self.history(restarted)
        #expect(next.id != history.id)
        #expect(next.backupTakenAt == RFC3339.date(from: "2026-11-27T03:00:00.250Z"))
        #expect(await restarted.terminate() == 0)
    }
}
