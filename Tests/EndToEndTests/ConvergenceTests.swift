import Foundation
import Models
import Networking
import Protocols
import Sync
import Testing
import TrendyServer
import TrendyServerTesting

/// Two devices of one user against trendy-server over HTTP, each on its own SQLite file.
@Suite("End to end: two devices converge")
struct ConvergenceTests {
    @Test(
        "create, edit and delete on one device converge on the other",
        arguments: [ServerConfiguration.Quirks.none, .original])
    func createEditDelete(quirks: ServerConfiguration.Quirks) async throws {
        var server = LiveTrendyServer.testConfiguration()
        server.quirks = quirks
        try await EndToEnd.with(server) { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let coffee = try await a.events.createEventType(name: "Coffee", color: "brown", icon: "cup")
            let strength = try await a.events.createPropertyDefinition(
                eventTypeId: coffee.id, key: "strength", label: "Strength", type: .number)
            let office = try await a.events.createGeofence(name: "Office", latitude: 52.5, longitude: 13.4) {
                $0.radius = 120
                $0.eventTypeEntryId = coffee.id
            }
            let start = Date(timeIntervalSince1970: 1_768_000_000)
            var created: [Event] = []
            for index in 0..<75 {
                created.append(
                    try await a.events.createEvent(eventTypeId: coffee.id, timestamp: start + Double(index) * 60) {
                        $0.notes = "cup \(index)"
                        $0.properties = ["strength": PropertyValue(type: .number, value: .number(Double(index % 5)))]
                    })
            }
            #expect(await a.sync().outcome == .synced(bootstrapped: true))
            #expect(await b.sync().outcome == .synced(bootstrapped: true))
            #expect(try b.contents() == a.contents())
            #expect(try b.events.events().count == 75)

            // b edits, deletes and adds; a follows.
            _ = try await b.events.updateEventType(id: coffee.id) { $0.name = "Espresso" }
            _ = try await b.events.updateEvent(id: created[0].id) { $0.notes = "edited on b" }
            try await b.events.deleteEvent(id: created[1].id)
            _ = try await b.events.updatePropertyDefinition(id: strength.id) { $0.label = "Intensity" }
            let tea = try await b.events.createEventType(name: "Tea")
            try await b.events.createEvent(eventTypeId: tea.id, timestamp: start)
            let edits = await b.sync()
            let left = try await b.engine.mutations()
            #expect(edits.outcome.name == "synced", "\(edits) \(left)")
            #expect(await a.sync().outcome == .synced(bootstrapped: false))
            #expect(try a.contents() == b.contents())
            #expect(try a.events.event(id: created[1].id) == nil)
            #expect(try a.events.eventType(id: coffee.id)?.name == "Espresso")

            // a deletes the geofence and the type with its events; b follows.
            try await a.events.deleteGeofence(id: office.id)
            try await a.events.deleteEventType(id: coffee.id)
            #expect(await a.sync().outcome.name == "synced")
            #expect(await b.sync().outcome.name == "synced")
            #expect(try b.contents() == a.contents())
            #expect(try b.events.eventTypes().map(\.name) == ["Tea"] && b.events.events().count == 1)
            #expect(try await a.client.getAllEvents(batchSize: 100).count == 1, "the server agrees")
        }
    }

    @Test("sync-engine §9.1 a delete on b wins over a's pending edit, which stays visible as a dead letter")
    func deleteWinsOverPendingEdit() async throws {
        try await EndToEnd.with { world in
            let (a, b, event) = try await world.twoDevicesSharingAnEvent("Run")

            try await b.events.deleteEvent(id: event.id)
            #expect(await b.sync().outcome.name == "synced")
            _ = try await a.events.updateEvent(id: event.id) { $0.notes = "edited offline on a" }
            let report = await a.sync()

            #expect(report.outcome == .partial(bootstrapped: false) && report.deadLettered == 1)
            #expect(try a.events.event(id: event.id) == nil, "the server's delete was applied")
            let dead = try #require(try await a.engine.mutations(state: .failed).first)
            #expect(dead.entityId == event.id && dead.operation == .update)
            #expect(dead.lastError?.contains("not found") == true)
            #expect(try await a.client.getAllEvents(batchSize: 10).isEmpty, "the edit did not bring it back")
            #expect(try await a.engine.discardMutations() == 1)
            #expect(await a.sync().outcome.name == "synced")
            #expect(try a.contents() == b.contents())
        }
    }

    @Test("offline then back: the server stops, local work queues, the server returns on the same data")
    func offlineThenBack() async throws {
        try await EndToEnd.with { world in
            let a = try world.device("a")
            let type = try await a.events.createEventType(name: "Walk")
            #expect(await a.sync().outcome.name == "synced")
            await world.stopServer()

            for index in 0..<5 {
                try await a.events.createEvent(
                    eventTypeId: type.id, timestamp: Date(timeIntervalSince1970: 1e9 + Double(index)))
            }
            _ = try await a.events.updateEventType(id: type.id) { $0.color = "green" }
            let historyBefore = try await a.engine.history().count
            let offline = await a.sync()
            guard case .offline = offline.outcome else {
                Issue.record("expected offline, got \(offline.outcome)")
                return
            }
            #expect(offline.pending == 6 && offline.pushed == 0)
            #expect(try await a.engine.history().count == historyBefore, "the health check failed: no history row")
            #expect(await a.engine.snapshot.state == .offline)

            try await world.startServer()
            #expect(await a.sync().outcome == .synced(bootstrapped: false))
            let b = try world.device("b")
            #expect(await b.sync().outcome == .synced(bootstrapped: true))
            #expect(try b.contents() == a.contents())
            #expect(try b.events.events().count == 5 && b.events.eventType(id: type.id)?.color == "green")
        }
    }
}
