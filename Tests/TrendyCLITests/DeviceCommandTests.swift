import Foundation
import Models
import TestSupport
import Testing
import TrendyServerTesting

/// `trendyctl devices` against the shipped trendy-server (api-v1 §16, trendyctl §1.2): each database is a device,
/// listed with this one marked; a revoke ends another device's sync and its live watch at once, keeps its data and
/// queue, and its next login makes it a new device whose queue goes out.
@Suite("trendyctl devices")
struct DeviceCommandTests {
    static let user = "0190f5c0-3f00-7a11-8b22-0000000000de"

    static func listed(_ cli: CLI) async throws -> [JSONValue] {
        try #require(try await cli.json("devices", "list").arrayValue)
    }

    static func this(_ devices: [JSONValue]) throws -> JSONValue {
        try #require(devices.first { $0["this_device"] == true })
    }

    @Test(
        "api-v1 §16 devices list shows every device with this one marked; revoke ends the other's sync and watch, keeps its data and queue; login makes it a new device"
    )
    func listRevokeAndSignInAgain() async throws {
        let server = try await ServerProcess.start(["--port", "0", "--in-memory", "--token", "t:\(Self.user)"])
        defer { server.stop() }
        let laptop = try CLI(server: server.url, token: "t")
        let phone = try CLI(server: server.url, token: "t")
        _ = try await laptop.json("types", "add", "Coffee")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("sync")["outcome"] == "synced")
        _ = try await laptop.json("events", "add", "Coffee", "--notes", "unseen by the phone")
        #expect(try await laptop.json("sync")["outcome"] == "synced")

        let seenByLaptop = try await Self.listed(laptop)
        #expect(seenByLaptop.count == 2)
        let laptopDevice = try Self.this(seenByLaptop)
        #expect(laptopDevice["client"] == .string("trendyctl/\(TrendyRelease.version)"))
        #expect(laptopDevice["status"] == "active" && laptopDevice["behind"] == 0)
        let phoneDevice = try #require(seenByLaptop.first { $0["this_device"] == false })
        #expect(phoneDevice["behind"] == 1, "the laptop's event is one change the phone was not sent")
        let phoneId = try #require(phoneDevice["id"]?.stringValue)
        #expect(try Self.this(try await Self.listed(phone))["id"]?.stringValue == phoneId)
        let table = try await laptop.run("devices", "list")
        #expect(table.lines.contains { $0.hasPrefix("*") && $0.contains(laptopDevice["id"]?.stringValue ?? "?") })

        // The phone watches live; the laptop revokes it by a prefix of its id.
        let watch = try await ChildProcess.start("trendyctl", ["sync", "--watch"], environment: phone.environment)
        try await LiveWatchTests.waitForOutput(watch, "the watch to apply the event") { _ in
            watch.stderrSoFar.contains("applied") || watch.stdoutSoFar.contains("applied")
                || watch.stderrSoFar.contains("watching live")
        }
        let revoke = try await laptop.run("devices", "revoke", String(phoneId.prefix(8)))
        #expect(revoke.status == 0 && revoke.stderr.contains("revoked \(phoneId)"), "\(revoke)")
        let ended = await watch.result()
        #expect(ended.status == 4 && ended.stderr.contains("revoked"), "\(ended.stderr)")

        // Offline work on the revoked phone stays, and its sync says what to do.
        _ = try await phone.json("events", "add", "Coffee", "--notes", "written while revoked")
        let refused = try await phone.run("sync")
        #expect(refused.status == 4 && refused.stderr.contains("this device's access was revoked"), "\(refused)")
        #expect(try await phone.json("queue", "list").arrayValue?.count == 1)

        let login = try await phone.run("login", "--with-token", "--json", stdin: "t")
        #expect(login.status == 0, "\(login)")
        let newId = try #require(login.json?["new_device"]?.stringValue)
        #expect(newId != phoneId)
        #expect(try await phone.json("sync")["outcome"] == "synced")
        #expect(try await phone.json("queue", "list").arrayValue?.isEmpty == true)
        let notes = try await laptop.json("events", "list")
        #expect(try await laptop.json("sync")["outcome"] == "synced")
        let afterSync = try await laptop.json("events", "list").arrayValue?.compactMap { $0["notes"]?.stringValue }
        #expect(afterSync?.contains("written while revoked") == true, "\(notes)")

        let finally = try await Self.listed(laptop)
        #expect(finally.count == 3)
        #expect(
            finally.first { $0["id"]?.stringValue == phoneId }?["status"]?.stringValue?.hasPrefix("revoked") == true)
        #expect(finally.first { $0["id"]?.stringValue == newId }?["status"] == "active")
        // An id that names no device, and one that names several, say so.
        let unknown = try await laptop.run("devices", "revoke", "ffffffff")
        #expect(unknown.status == 1 && unknown.stderr.contains("no device ffffffff"), "\(unknown)")
        let ambiguous = try await laptop.run("devices", "revoke", "")
        #expect(ambiguous.status != 0, "\(ambiguous)")
    }
}
