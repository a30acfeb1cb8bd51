import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Sync smoke")
struct SmokeTests {
    @Test("local writes sync to the server and appear on a second device")
    func roundTrip() async throws {
        let laptop = try SyncHarness()
        let type = try await laptop.events.createEventType(name: "Coffee")
        let event = try await laptop.events.createEvent(eventTypeId: type.id, timestamp: laptop.clock.now()) {
            $0.notes = "double"
        }
        let report = await laptop.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: true), "\(report)")
        #expect(report.pushed == 2 && report.pending == 0)
        #expect(laptop.serverEvents.map(\.id) == [event.id])
        #expect(try laptop.events.event(id: event.id)?.syncStatus == .synced)
        let phone = try laptop.secondDevice()
        let phoneReport = await phone.engine.performSync()
        #expect(phoneReport.outcome == .synced(bootstrapped: true))
        #expect(try phone.events.event(id: event.id)?.notes == "double")
        #expect(try phone.history().count == 1)
    }
}
