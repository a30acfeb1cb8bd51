import Foundation
import Models
import Testing
import TrendyServerTesting

/// An operator restores the server's database from an older backup by copying the file, without a mark. Its change
/// ids start again below the cursors the devices hold, so a pull above them used to find nothing, forever; once a
/// new row took the id of a device's cursor, only a verify could tell (api-v1 §6.5, sync-engine R10, R10a). The
/// 410 now makes each device give back what the server lost before it bootstraps (R15).
@Suite("trendyctl against a server restored from a backup")
struct ServerRestoreTests {
    static let user = "0190f5c0-3f00-7a11-8b22-0000000000b5"

    /// The server on `file`, on `port` (0: any) so that a restart comes back where the devices look.
    static func start(_ file: URL, port: Int = 0, _ more: [String] = []) async throws -> ServerProcess {
        try await ServerProcess.start(
            [
                "--port", "\(port)", "--db", file.path, "--token", "restore-token:\(user)",
            ] + more)
    }

    /// A folder of its own for one walk, removed by the caller; the server's file in it.
    static func folder() throws -> (folder: URL, file: URL, backup: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("server.sqlite"), folder.appendingPathComponent("backup.sqlite"))
    }

    /// The backup: the database file with its write-ahead log, as a file-level backup of a stopped server takes.
    static func copyFile(_ source: URL, to target: URL) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
    }

    /// Puts `backup` back in place of `file` by hand, with no command: no mark, no new history.
    static func putBack(_ backup: URL, as file: URL) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        try copyFile(backup, to: file)
    }

    /// The walks' start: a laptop makes the type "Early" and syncs (the phone too, with `phoneSyncs`), the server
    /// stops, and its file is copied to `backup`. Returns the port a restart comes back on, and the two devices.
    static func backedUp(
        _ file: URL, to backup: URL, phoneSyncs: Bool
    ) async throws -> (port: Int, laptop: CLI, phone: CLI) {
        let server = try await Self.start(file)
        let port = try #require(URL(string: server.url)?.port)
        let laptop = try CLI(server: server.url, token: "restore-token")
        let phone = try CLI(server: server.url, token: "restore-token")
        _ = try await laptop.json("types", "add", "Early")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        if phoneSyncs { #expect(try await phone.json("sync")["outcome"] == "synced") }
        #expect(await server.terminate() == 0)
        try Self.copyFile(file, to: backup)
        return (port, laptop, phone)
    }

    static func names(_ cli: CLI) async throws -> [String] {
        (try await cli.json("types", "list").arrayValue ?? []).compactMap { $0["name"]?.stringValue }.sorted()
    }

    @Test(
        "R15 a device whose cursor is ahead of the restored history gives back, then bootstraps; so does one whose cursor a new row took"
    )
    func restoredFromAnOlderBackup() async throws {
        let (folder, file, backup) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let (port, laptop, phone) = try await Self.backedUp(file, to: backup, phoneSyncs: false)
        var server = try await Self.start(file, port: port)
        _ = try await laptop.json("types", "add", "Late")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(try await Self.names(phone) == ["Early", "Late"])
        #expect(await server.terminate() == 0)

        try Self.putBack(backup, as: file)
        server = try await Self.start(file, port: port)
        defer { server.stop() }

        // The phone's cursor is above everything the restored database holds: the feed says so (410). The same
        // round gives back what the server lost (the type made after the backup), then bootstraps.
        let phoneSync = try await phone.run("sync", "--json")
        #expect(phoneSync.status == 0 && phoneSync.json?["bootstrapped"] == true, "\(phoneSync)")
        #expect(phoneSync.json?["given_back"] == 1, "\(phoneSync)")
        let restored = try await phone.run("types", "list", "--json")
        #expect(try await Self.names(phone) == ["Early", "Late"], "\(restored)")
        #expect(try await phone.run("sync", "--verify").status == 0)

        // The phone writes next: its new row takes the id the laptop's cursor names, so the laptop's pull cannot
        // tell by the id. It sends the time of the change it saw there (since_created_at); the server's change
        // with that id has another, so the feed says 410 and the laptop's round bootstraps too, after a give-back
        // that finds nothing missing: it keeps what it made and gets what it missed, with no verify.
        _ = try await phone.json("types", "add", "Fresh")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        let laptopSync = try await laptop.run("sync", "--json")
        #expect(laptopSync.status == 0 && laptopSync.json?["bootstrapped"] == true, "\(laptopSync)")
        #expect(laptopSync.json?["given_back"] == 0, "\(laptopSync)")
        #expect(try await Self.names(laptop) == ["Early", "Fresh", "Late"])
        #expect(try await laptop.run("sync", "--verify").status == 0)
        #expect(try await phone.run("sync", "--verify").status == 0)
    }

    @Test(
        "R15 api-v1 §6.8 §16 a copy put back by hand, unmarked, and compacted since: a device whose cursor's change compaction removed still finds the restore and gives back"
    )
    func unmarkedCopyCompacted() async throws {
        let (folder, file, backup) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let (port, laptop, phone) = try await Self.backedUp(file, to: backup, phoneSyncs: true)
        // After the backup: two changes the phone pulls, so its cursor names the second of them.
        var server = try await Self.start(file, port: port)
        _ = try await laptop.json("types", "add", "Late")
        _ = try await laptop.json("events", "add", "Late", "--at", "2026-11-20T08:00:00Z", "--notes", "after")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(await server.terminate() == 0)

        // Put back by hand, unmarked. A new device edits "Early" again and again: the new history's changes take
        // the ids of the lost ones, the phone's cursor among them, and compaction removes every one but the last.
        try Self.putBack(backup, as: file)
        server = try await Self.start(file, port: port)
        defer { server.stop() }
        let tablet = try CLI(server: server.url, token: "restore-token")
        #expect(try await tablet.json("sync")["outcome"] == "synced")
        for round in 1...5 {
            _ = try await tablet.json("types", "edit", "Early", "--color", String(format: "#0000%02X", round))
            #expect(try await tablet.json("sync")["outcome"] == "synced")
        }
        let compacted = try await ChildProcess.run(
            "trendy-server", ["compact", "--db", file.path, "--older-than-days", "0"], environment: [:])
        #expect(compacted.status == 0 && compacted.stdout.contains("removed 3 changes"), "\(compacted)")

        // The phone's position names a change that is gone: refused, so the phone gives back what the server lost
        // before it takes the server's state, instead of pulling on as if nothing happened.
        let phoneSync = try await phone.run("sync", "--json")
        #expect(phoneSync.status == 0 && phoneSync.json?["bootstrapped"] == true, "\(phoneSync)")
        #expect(phoneSync.json?["given_back"] == 2, "\(phoneSync)")
        #expect(try await laptop.run("sync").status == 0)
        #expect(try await tablet.run("sync").status == 0)
        let expected = try await RestoreGiveBackTests.holdings(laptop)
        #expect(expected.contains { $0.contains("after") })
        for device in [phone, tablet] { #expect(try await RestoreGiveBackTests.holdings(device) == expected) }
        for device in [laptop, phone, tablet] {
            let verify = try await device.run("sync", "--verify")
            #expect(verify.status == 0, "\(verify)")
        }
    }

    @Test(
        "R15 api-v1 §15.1 a type and an event deleted on one device, then edited on another through a copy put back by hand that had lost the deletes: after a second copy the deletes win, whichever device gives back first",
        arguments: [true, false]
    )
    func deleteThenEditThroughACopy(laptopFirst: Bool) async throws {
        let (folder, file, backup) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }

        // Both devices hold the types "Early" and "Kept" and an event of "Kept"; so does the backup.
        var server = try await Self.start(file)
        let port = try #require(URL(string: server.url)?.port)
        let laptop = try CLI(server: server.url, token: "restore-token")
        let phone = try CLI(server: server.url, token: "restore-token")
        _ = try await laptop.json("types", "add", "Early")
        _ = try await laptop.json("types", "add", "Kept")
        let event = try #require(try await laptop.json("events", "add", "Kept", "--notes", "first")["id"]?.stringValue)
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(await server.terminate() == 0)
        try Self.copyFile(file, to: backup)

        // The laptop deletes the type and the event.
        server = try await Self.start(file, port: port)
        _ = try await laptop.run("types", "rm", "Early")
        _ = try await laptop.run("events", "rm", event)
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(await server.terminate() == 0)

        // The copy put back by hand lost the deletes; the phone, whose position the copy still holds, edits both and
        // the server takes the edits.
        try Self.putBack(backup, as: file)
        server = try await Self.start(file, port: port)
        _ = try await phone.json("types", "edit", "Early", "--color", "#123456")
        _ = try await phone.json("events", "edit", event, "--notes", "edited")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(await server.terminate() == 0)

        // The copy again: the deletes and the edits are lost. Each device gives back what it holds, the deletes and
        // the later edits of what they ended, in one order or the other. The deletes are taken either way; the
        // edits only when they come first (then the deletes end them), else they are answered deleted, uncounted.
        try Self.putBack(backup, as: file)
        server = try await Self.start(file, port: port)
        defer { server.stop() }
        for (device, givenBack) in laptopFirst ? [(laptop, 2), (phone, 0)] : [(phone, 2), (laptop, 2)] {
            let sync = try await device.run("sync", "--json")
            #expect(sync.status == 0 && sync.json?["given_back"]?.intValue == givenBack, "\(sync)")
        }
        let fresh = try CLI(server: server.url, token: "restore-token")
        for device in [laptop, phone, fresh] {
            #expect(try await device.run("sync").status == 0)
            #expect(try await Self.names(device) == ["Kept"], "the deletes win")
            let events = try await device.json("events", "list").arrayValue ?? []
            #expect(events.isEmpty, "\(events)")
            let verify = try await device.run("sync", "--verify")
            #expect(verify.status == 0, "\(verify)")
        }
    }

    @Test(
        "R15 api-v1 §7 §15.1 a type and an event whose answers were lost, sent again to a copy put back by hand that never saw them, after another device deleted them: the deletes win"
    )
    func resentCreatesAfterADeleteThroughACopy() async throws {
        let (folder, file, backup) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (port, laptop, phone) = try await Self.backedUp(file, to: backup, phoneSyncs: true)

        // The server takes the laptop's event, then its type, and drops each answer: the laptop's round stops at the
        // push, before any pull, so its position stays one the copy holds.
        var server = try await Self.start(file, port: port, ["--fault-drop", "1"])
        let event = try #require(try await laptop.json("events", "add", "Early")["id"]?.stringValue)
        #expect(try await laptop.run("sync").status == 75, "the batch's answer was lost")
        _ = try await laptop.json("types", "add", "Tea")
        #expect(try await laptop.run("sync").status == 75, "the type's answer was lost")
        #expect(await server.terminate() == 0)

        // The phone gets both and deletes both.
        server = try await Self.start(file, port: port)
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(try await Self.names(phone) == ["Early", "Tea"])
        _ = try await phone.run("events", "rm", event)
        _ = try await phone.run("types", "rm", "Tea")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(await server.terminate() == 0)

        // The copy put back by hand: it never saw the creates nor the deletes. The laptop sends its creates again,
        // which the copy takes as new; the phone, whose position is past the copy's head, gives its deletes back.
        try Self.putBack(backup, as: file)
        server = try await Self.start(file, port: port)
        defer { server.stop() }
        let laptopSync = try await laptop.run("sync", "--json")
        #expect(laptopSync.status == 0 && laptopSync.json?["given_back"]?.intValue == 0, "sent again: \(laptopSync)")
        let phoneSync = try await phone.run("sync", "--json")
        #expect(phoneSync.status == 0 && phoneSync.json?["given_back"]?.intValue == 2, "\(phoneSync)")
        let fresh = try CLI(server: server.url, token: "restore-token")
        for device in [laptop, phone, fresh] {
            #expect(try await device.run("sync").status == 0)
            #expect(try await Self.names(device) == ["Early"], "the deletes win")
            let events = try await device.json("events", "list").arrayValue ?? []
            #expect(events.isEmpty, "\(events)")
            let verify = try await device.run("sync", "--verify")
            #expect(verify.status == 0, "\(verify)")
        }
    }
}
