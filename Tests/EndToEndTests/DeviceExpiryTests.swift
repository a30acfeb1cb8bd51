import Foundation
import Models
import Networking
import Protocols
import Sync
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// Devices and compaction over HTTP (api-v1 §6.8, §16): a device seen within `--device-expiry-days` resumes with an
/// incremental pull after compaction; one not seen for longer finds its position gone, bootstraps, and keeps its
/// queue. The server's clock moves; the devices' stays on real time, so their ids never look like the future.
@Suite("End to end: devices and compaction")
struct DeviceExpiryTests {
    @Test(
        "api-v1 §6.8 §16 after compaction a device seen within the expiry resumes incrementally; an expired one bootstraps and keeps its queue"
    )
    func expiredDeviceBootstrapsKeepingItsQueue() async throws {
        let serverClock = ManualClock(now: Date())
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.clock = serverClock
        configuration.deviceExpiryDays = 30
        try await EndToEnd.with(configuration) { world in
            let (a, b, event) = try await world.twoDevicesSharingAnEvent("Coffee")
            // b goes offline and queues a new event; c joins after a's first edit, so the two stand at different
            // changes. a edits the shared event again and again.
            let queued = try await b.events.createEvent(
                eventTypeId: event.eventTypeId, timestamp: Date(timeIntervalSince1970: 1.1e9)
            ) { $0.notes = "made offline" }
            let c = try world.device("c")
            for round in 1...4 {
                _ = try await a.events.updateEvent(id: event.id) { $0.notes = "edit \(round)" }
                #expect(await a.sync().outcome == .synced(bootstrapped: false))
                if round == 1 { #expect(await c.sync().outcome == .synced(bootstrapped: true)) }
            }
            // c is seen again at 20 days (any request), b is not: at 31 days b has expired, c has not.
            serverClock.advance(by: 20 * 86_400)
            _ = try await c.client.getEventTypes()
            serverClock.advance(by: 11 * 86_400)
            let report = try await world.compactServerLog(writtenBefore: serverClock.now())
            #expect(report.removed >= 3, "\(report)")

            let resumed = await c.sync()
            #expect(resumed.outcome == .synced(bootstrapped: false), "c's position was kept: \(resumed)")
            // b's write from its removed position is refused (api-v1 §6.7): its run bootstraps, then pushes its queue.
            let historyBefore = try await b.engine.history().count
            let expired = await b.sync()
            #expect(expired.outcome.name == "synced", "\(expired)")
            let rounds = try await b.engine.history().prefix(try await b.engine.history().count - historyBefore)
            #expect(rounds.map(\.kind).contains(.bootstrap), "b's position was removed: \(rounds)")
            #expect(try await b.engine.mutations().isEmpty, "b's queued event went out")
            #expect(await a.sync().outcome.name == "synced")
            #expect(await c.sync().outcome.name == "synced")
            let expected = try a.contents()
            #expect(expected.contains { $0.contains(queued.id) && $0.contains("made offline") })
            #expect(expected.contains { $0.contains("edit 4") })
            for device in [b, c] { #expect(try device.contents() == expected) }
            for device in [a, b, c] {
                let verify = await device.engine.verify()
                #expect(verify.exitCode == 0, "\(device.name): \(verify)")
            }
        }
    }
}
