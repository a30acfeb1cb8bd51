import Foundation
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

@Suite("Compaction of the change log")
struct CompactionTests {
    /// The feed from `since` (with its change's time when given): the entries' ids and entity ids, or the problem.
    static func feed(
        _ harness: ServerHarness, since: Int = 0, createdAt: String? = nil
    ) async throws -> (status: Int, entries: [(id: Int, entity: String, operation: String)], problem: String?) {
        let query = createdAt.map { "&since_created_at=\($0)" } ?? ""
        let response = try await harness.send("GET", "/api/v1/changes?since=\(since)&limit=500\(query)")
        let changes = (response.json?["changes"] as? [[String: Any]]) ?? []
        return (
            response.status,
            changes.map {
                (
                    id: ($0["id"] as? Int) ?? -1, entity: ($0["entity_id"] as? String) ?? "",
                    operation: ($0["operation"] as? String) ?? ""
                )
            }, response.problemType
        )
    }

    @Test(
        "api-v1 §6.8 below the horizon only each entity's newest change stays, a delete included; above it every change; the feed from any cursor ends at the same state"
    )
    func keepsTheNewestChangeOfEachEntity() async throws {
        let (configuration, clock) = manualClockConfiguration()
        try await ServerHarness.with(configuration) { harness in
            let type = try await harness.eventType("Coffee")
            for color in ["red", "green", "blue"] {
                let edit = try await harness.send(
                    "PUT", "/api/v1/event-types/\(type)", json: #"{"color":"\#(color)"}"#)
                #expect(edit.status == 200)
            }
            let event = try #require(try await harness.postEvent(type: type).json?["id"] as? String)
            let removed = try await harness.eventType("Gone")
            #expect(try await harness.send("DELETE", "/api/v1/event-types/\(removed)").status == 204)
            let before = try await Self.feed(harness)
            // A device that read up to the type's second change, with that change's time.
            let middle = before.entries[2].id
            let middleRow = try await harness.send("GET", "/api/v1/changes?since=\(middle - 1)&limit=1")
            let middleTime = try #require(
                ((middleRow.json?["changes"] as? [[String: Any]])?.first?["created_at"] as? String))
            clock.advance(by: 3 * 86_400)
            #expect(try await harness.send("PUT", "/api/v1/events/\(event)", json: #"{"notes":"later"}"#).status == 200)

            let report = try await harness.server.compactChangeLog(
                writtenBefore: clock.now().millisecondsSince1970 - 86_400_000)
            #expect(report.users == 1)
            // The type's four changes leave one; the event's create is superseded by its later edit, above the
            // horizon; "Gone" keeps its delete only.
            #expect(report.removed == 5)
            let after = try await Self.feed(harness)
            #expect(after.entries.map(\.entity) == [type, removed, event])
            #expect(after.entries.map(\.operation) == ["update", "delete", "update"])
            #expect(after.entries[0].id == before.entries[3].id && after.entries[1].id == before.entries[6].id)

            // A cursor compaction removed, with its time, held by no device: nothing can tell it from a position of
            // a history the database lost, and the device bootstraps (api-v1 §6.5, §6.8; DeviceTests keep one).
            let resumed = try await Self.feed(harness, since: middle, createdAt: middleTime)
            #expect(resumed.status == 410 && resumed.problem == "cursor_expired")
            // Without its time nothing is checked, as before compaction.
            #expect(try await Self.feed(harness, since: middle).entries.map(\.entity) == [type, removed, event])
            // A write from it is refused with its time (api-v1 §6.7), and taken without.
            let write = try await harness.send(
                "PUT", "/api/v1/event-types/\(type)", json: #"{"icon":"leaf"}"#,
                headers: ["Trendy-Feed-Position": "\(middle); created_at=\(middleTime)"])
            #expect(write.status == 410 && write.problemType == "cursor_expired")
            let untimed = try await harness.send(
                "PUT", "/api/v1/event-types/\(type)", json: #"{"icon":"leaf"}"#,
                headers: ["Trendy-Feed-Position": "\(middle)"])
            #expect(untimed.status == 200, "\(untimed.text)")
            // A kept change under another time is not.
            let kept = after.entries[0].id
            let moved = try await Self.feed(harness, since: kept, createdAt: "2020-01-01T00:00:00.000Z")
            #expect(moved.status == 410 && moved.problem == "cursor_expired")
            // Compacting again below the same horizon: the type's change there is superseded by the write above.
            let again = try await harness.server.compactChangeLog(
                writtenBefore: clock.now().millisecondsSince1970 - 86_400_000)
            #expect(again.removed == 1)
            #expect(try await Self.feed(harness).entries.map(\.entity) == [removed, event, type])
        }
    }

    @Test("api-v1 §6.8 entities of two kinds under one id are compacted apart")
    func kindsApart() async throws {
        try await ServerHarness.with { harness in
            let id = ServerHarness.newId()
            try await harness.eventType("Shared", id: id)
            #expect(try await harness.postEvent(id: id, type: id).status == 201)
            let report = try await harness.server.compactChangeLog(
                writtenBefore: Date().addingTimeInterval(60).millisecondsSince1970)
            #expect(report.removed == 0)
            #expect(try await Self.feed(harness).entries.map(\.operation) == ["create", "create"])
        }
    }
}
