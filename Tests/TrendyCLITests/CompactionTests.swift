import Foundation
import Models
import Testing
import TrendyServerTesting

/// docs/server.md "Compaction", end to end through the binaries: a device stays offline while another edits the same
/// entities many times, creates a type and its events and edits the type later, and deletes; `trendy-server compact`
/// runs beside the serving server; the offline device then catches up with one incremental pull, ends equal to the
/// other, and verifies (api-v1 §6.8).
@Suite("A compacted change log is still a feed")
struct CompactionTests {
    static let user = "0190f5c0-3f00-7a11-8b22-0000000000d8"

    @Test(
        "api-v1 §6.8 a device offline through many edits catches up after compaction with one incremental pull, equal and verified"
    )
    func offlineDeviceCatchesUpIncrementally() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = ["--db", folder.appendingPathComponent("server.sqlite").path]
        try await catchUp(storage: database)
    }

    @Test(
        "api-v1 §6.8 on PostgreSQL: trendy-server compact beside the serving server; the offline device catches up incrementally, verified",
        .requiresPostgreSQL)
    func offlineDeviceCatchesUpOnPostgres() async throws {
        let url = try #require(LiveTrendyServer.postgresTestURL()).url
        try await catchUp(storage: ["--postgres", url])
    }

    /// The walk: `storage` are the flags of both `trendy-server` and `trendy-server compact`.
    func catchUp(storage database: [String]) async throws {
        let server = try await ServerProcess.start(["--port", "0", "--token", "t:\(Self.user)"] + database)
        defer { server.stop() }
        let laptop = try CLI(server: server.url, token: "t")
        let phone = try CLI(server: server.url, token: "t")

        _ = try await laptop.json("types", "add", "Coffee")
        let kept = try RestoreGiveBackTests.id(
            try await laptop.json("events", "add", "Coffee", "--at", "2026-11-20T07:30:00Z", "--notes", "first"))
        let gone = try RestoreGiveBackTests.id(
            try await laptop.json("events", "add", "Coffee", "--at", "2026-11-20T09:00:00Z"))
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")

        // The phone is offline from here. The same event edited again and again, a type created with an event and
        // edited after it (compaction keeps the type's last change, after the event's), a delete.
        for round in 1...8 {
            _ = try await laptop.json("events", "edit", kept, "--notes", "edit \(round)")
            _ = try await laptop.json("types", "edit", "Coffee", "--color", String(format: "#%06X", round * 4_096))
            #expect(try await laptop.json("sync")["outcome"] == "synced")
        }
        _ = try await laptop.json("types", "add", "Juice")
        _ = try await laptop.json("events", "add", "Juice", "--at", "2026-11-21T10:00:00Z", "--notes", "orange")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        _ = try await laptop.json("types", "edit", "Juice", "--color", "#FFA500")
        _ = try await laptop.json("events", "rm", gone)
        #expect(try await laptop.json("sync")["outcome"] == "synced")

        let compacted = try await ChildProcess.run(
            "trendy-server", ["compact"] + database + ["--older-than-days", "0"], environment: [:])
        #expect(compacted.status == 0, "\(compacted.stderr)")
        #expect(compacted.stdout.contains("removed"), "\(compacted.stdout)")
        let removed = compacted.stdout.split(separator: " ").drop { $0 != "removed" }.dropFirst().first
        #expect((removed.flatMap { Int($0) } ?? 0) >= 14, "\(compacted.stdout)")

        let sync = try await phone.json("sync")
        #expect(sync["outcome"] == "synced" && sync["bootstrapped"] == false, "\(sync)")
        // One change per entity the laptop touched: two types, two events (one a delete), not each edit.
        #expect((sync["pulled"]?.doubleValue ?? 99) <= 6, "\(sync)")
        let expected = try await RestoreGiveBackTests.holdings(laptop)
        #expect(try await RestoreGiveBackTests.holdings(phone) == expected)
        #expect(expected.contains { $0.contains("edit 8") } && !expected.contains { $0.contains(gone) })
        for device in [laptop, phone] {
            let verify = try await device.run("sync", "--verify")
            #expect(verify.status == 0, "\(verify)")
        }
        // Writes after compaction, from a position compaction may have removed, are taken (api-v1 §6.7).
        _ = try await phone.json("events", "edit", kept, "--notes", "after compaction")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await RestoreGiveBackTests.holdings(laptop) == RestoreGiveBackTests.holdings(phone))
        #expect(await server.terminate() == 0)
    }
}
