import Foundation
import Models
import Testing
import TrendyServerTesting

/// What trendyctl shows as an entity's status is what the queue says (trendyctl §1.3): an edit of a synced entity is
/// `pending` until it is pushed, in every listing, record and JSON document, though the stored `sync_status` keeps
/// sync-engine §1.3's rule (an update leaves it `synced`).
@Suite("trendyctl shown status")
struct ShownStatusTests {
    @Test(
        "trendyctl §1.3 an edited, unpushed entity of every kind shows pending in show, list and --json; synced once pushed"
    )
    func editedEntitiesShowPending() async throws {
        try await withDevice(token: "alice-token") { _, cli in
            let tea = try await cli.json("types", "add", "Tea")
            let typeId = try #require(tea["id"]?.stringValue)
            let cup = try #require(try await cli.json("events", "add", typeId)["id"]?.stringValue)
            let other = try #require(try await cli.json("events", "add", typeId, "--at", "2026-01-02T10:00:00Z")["id"])
            let mood = try await cli.json("props", "add", typeId, "mood", "--label", "Mood", "--kind", "text")
            let moodId = try #require(mood["id"]?.stringValue)
            let fence = try await cli.json("geofences", "add", "Office", "--lat", "51.5", "--lon", "-0.1")
            let fenceId = try #require(fence["id"]?.stringValue)
            #expect(try await cli.json("sync")["outcome"] == "synced")
            #expect(try await cli.json("types", "show", typeId)["sync_status"] == "synced")

            // Edited, not yet pushed: each one says so, wherever it is shown.
            #expect(try await cli.json("types", "edit", typeId, "--color", "#123456")["sync_status"] == "pending")
            #expect(try await cli.json("events", "edit", cup, "--notes", "later")["sync_status"] == "pending")
            #expect(try await cli.json("props", "edit", moodId, "--label", "Feeling")["sync_status"] == "pending")
            #expect(try await cli.json("geofences", "edit", fenceId, "--radius", "250")["sync_status"] == "pending")
            #expect(try await cli.json("types", "show", typeId)["sync_status"] == "pending")
            #expect(try await cli.json("events", "show", cup)["sync_status"] == "pending")
            #expect(try await cli.json("geofences", "show", fenceId)["sync_status"] == "pending")
            let types = try await cli.json("types", "list").arrayValue ?? []
            #expect(types.map { $0["sync_status"] } == ["pending"])
            let definitions = try await cli.json("props", "list", typeId).arrayValue ?? []
            #expect(definitions.map { $0["sync_status"] } == ["pending"])
            let fences = try await cli.json("geofences", "list").arrayValue ?? []
            #expect(fences.map { $0["sync_status"] } == ["pending"])
            let shown = try await cli.run("events", "show", cup)
            #expect(shown.lines.contains { $0.hasPrefix("status") && $0.hasSuffix("pending") }, "\(shown)")
            let listed = try await cli.run("types", "list")
            #expect(listed.lines.dropFirst().allSatisfy { $0.hasSuffix("pending") }, "\(listed)")

            // --status selects by what is shown: the edited event is pending, the other synced.
            let pending = try await cli.json("events", "list", "--status", "pending").arrayValue ?? []
            #expect(pending.map { $0["id"]?.stringValue } == [cup])
            let synced = try await cli.json("events", "list", "--status", "synced", "--limit", "1").arrayValue ?? []
            #expect(synced.map { $0["id"] } == [other])

            #expect(try await cli.json("sync")["pushed"] == 4)
            #expect(try await cli.json("types", "show", typeId)["sync_status"] == "synced")
            #expect(try await cli.json("events", "show", cup)["sync_status"] == "synced")
            #expect(try await cli.json("events", "list", "--status", "pending").arrayValue?.isEmpty == true)
        }
    }
}
