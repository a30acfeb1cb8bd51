import Foundation
import Models
import Testing
import TrendyServerTesting

/// A type created offline on two devices under one name leaves no stuck dead letter.
@Suite("trendyctl types merge")
struct TypeMergeTests {
    @Test("the refused create names the server's type; types merge moves events, definitions and fences into it")
    func mergeAfterDuplicateName() async throws {
        try await withTwoDevices { _, laptop, phone in
            // Both offline: one name, two ids.
            let serverType = try #require(try await laptop.json("types", "add", "Coffee")["id"]?.stringValue)
            let localType = try #require(try await phone.json("types", "add", "Coffee")["id"]?.stringValue)
            _ = try await phone.json("props", "add", localType, "cups", "--label", "Cups", "--kind", "number")
            let event = try #require(
                try await phone.json("events", "add", localType, "--notes", "espresso", "--prop", "cups=2")["id"]?
                    .stringValue)
            _ = try await phone.json(
                "geofences", "add", "Cafe", "--lat", "51.5", "--lon", "-0.12", "--entry-type", localType)
            #expect(try await laptop.json("sync")["outcome"] == "synced")

            let refused = try await phone.run("sync", "--json")
            #expect(refused.status == 5, "\(refused)")
            let queue = try await phone.json("queue", "list")
            let deadType = try #require(
                queue.arrayValue?.first { $0["entity_id"]?.stringValue == localType }, "\(queue)")
            #expect(deadType["state"] == "failed")
            #expect(deadType["last_error"]?.stringValue?.contains(serverType) == true, "\(deadType)")
            // A person's sync says it too, whole, with the command that settles it.
            let told = try await phone.run("sync")
            #expect(told.status == 5, "\(told)")
            #expect(told.stderr.contains("failed: create of event_type \(localType): conflict"), "\(told)")
            #expect(told.stderr.contains("trendyctl types merge \(localType) \(serverType)"), "\(told)")

            let merged = try await phone.json("types", "merge", localType, serverType)
            #expect(merged["events"] == 1 && merged["property_definitions"] == 1 && merged["geofences"] == 1)
            let synced = try await phone.json("sync")
            #expect(synced["outcome"] == "synced", "\(synced)")
            #expect(try await phone.json("queue", "list") == [], "nothing stuck")
            #expect(try await phone.run("types", "show", localType).status == 1, "the local type is gone")

            #expect(try await laptop.json("sync")["outcome"] == "synced")
            let moved = try await laptop.json("events", "show", event)
            #expect(moved["event_type_id"]?.stringValue == serverType && moved["notes"] == "espresso")
            #expect(moved["properties"]?["cups"]?["value"] == 2)
            let fences = try await laptop.json("geofences", "list")
            #expect(fences.arrayValue?.first?["event_type_entry_id"]?.stringValue == serverType)
            let definitions = try await laptop.json("props", "list", serverType)
            #expect(definitions.arrayValue?.map { $0["key"] } == ["cups"])
        }
    }

    @Test("a merge that would give the target two events at one time is refused whole, naming the time")
    func mergeRefusesTimeClash() async throws {
        try await withDevice(token: "alice-token") { _, phone in
            let local = try #require(try await phone.json("types", "add", "Coffee")["id"]?.stringValue)
            let other = try #require(try await phone.json("types", "add", "Espresso")["id"]?.stringValue)
            let at = "2026-11-21T07:30:00Z"
            let moving = try #require(
                try await phone.json("events", "add", local, "--at", at, "--notes", "mine")["id"]?.stringValue)
            _ = try await phone.json("events", "add", other, "--at", at)
            _ = try await phone.json("events", "add", local, "--at", "2026-11-21T08:00:00Z")
            let queued = try await phone.json("queue", "list")

            let refused = try await phone.run("types", "merge", local, other)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stderr.contains("cannot merge") && refused.stderr.contains("2026-11-21T07:30:00.000Z"))
            #expect(try await phone.json("queue", "list") == queued, "nothing changed")
            #expect(try await phone.json("events", "show", moving)["event_type_id"]?.stringValue == local)

            _ = try await phone.json("events", "edit", moving, "--at", "2026-11-21T07:31:00Z")
            let merged = try await phone.json("types", "merge", local, other)
            #expect(merged["events"] == 2)
            #expect(try await phone.json("sync")["outcome"] == "synced")
        }
    }

    @Test("a key both types define with different kinds is named: the moved events keep their values")
    func mergeWarnsOfAKindClash() async throws {
        let cli = try CLI()
        _ = try await cli.json("types", "add", "Swim")
        _ = try await cli.json("types", "add", "Pool")
        _ = try await cli.json("props", "add", "Swim", "size", "--label", "Size", "--kind", "select", "--option", "big")
        _ = try await cli.json("props", "add", "Pool", "size", "--label", "Size", "--kind", "number")
        let event = try #require(try await cli.json("events", "add", "Swim", "--prop", "size=big")["id"]?.stringValue)
        let merged = try await cli.run("types", "merge", "Swim", "Pool")
        #expect(merged.status == 0, "\(merged)")
        #expect(
            merged.stderr.contains("warning: size is select in Swim but number in Pool: the moved events keep"),
            "\(merged)")
        let moved = try await cli.json("events", "show", event)
        #expect(moved["properties"]?["size"] == ["type": "select", "value": "big"], "\(moved)")
        // A move is a local edit (sync-engine §1.3): an event the server has not seen stays pending.
        #expect(moved["event_type_id"] == (try await cli.json("types", "show", "Pool"))["id"])
        #expect(moved["sync_status"] == "pending", "\(moved)")
    }
}
