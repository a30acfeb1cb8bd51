import Foundation
import Models
import Networking
import Protocols
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// The devices of an account (api-v1 §16): what the server records of each, the list, revoking one, and what
/// compaction keeps for them (api-v1 §6.8).
@Suite("Devices")
struct DeviceTests {
    static func device(_ id: UUID, client: String = "trendyctl/1.0.0") -> [String: String] {
        [DeviceHeader.headerName: DeviceHeader(id: id, client: client).header]
    }

    static func devices(_ harness: ServerHarness, token: String? = nil) async throws -> [[String: Any]] {
        let response = try await harness.send("GET", "/api/v1/devices", token: token)
        #expect(response.status == 200, "\(response.text)")
        return (response.json?["devices"] as? [[String: Any]]) ?? []
    }

    @Test(
        "api-v1 §16 each device is recorded with its client, first and last seen, and the last change it was sent; a request without the header records nothing"
    )
    func recordsEachDevice() async throws {
        let (configuration, clock) = manualClockConfiguration()
        try await ServerHarness.with(configuration) { harness in
            let (phone, laptop) = (UUID(), UUID())
            let type = try await harness.eventType("Coffee")
            _ = try await harness.eventType("Tea")
            let firstSeen = clock.now()
            let pulled = try await harness.send(
                "GET", "/api/v1/changes?since=0&limit=1", headers: Self.device(phone, client: "app/2.1"))
            #expect(pulled.status == 200)
            clock.advance(by: 120)
            #expect(
                try await harness.send("GET", "/api/v1/event-types/\(type)", headers: Self.device(laptop)).status
                    == 200)
            // No header: served, not recorded.
            #expect(try await harness.send("GET", "/api/v1/changes?since=0").status == 200)

            let listed = try await Self.devices(harness)
            #expect(listed.map { $0["id"] as? String } == [laptop, phone].map { $0.uuidString.lowercased() })
            let phoneRow = listed[1]
            #expect(phoneRow["client"] as? String == "app/2.1")
            #expect(phoneRow["first_seen_at"] as? String == RFC3339.string(from: firstSeen))
            // It was sent the first of the two changes: one behind.
            #expect(phoneRow["cursor"] as? Int == 1 && phoneRow["behind"] as? Int == 1)
            #expect(phoneRow["expired"] as? Bool == false && phoneRow["streaming"] as? Bool == false)
            #expect(listed[0]["cursor"] == nil && listed[0]["behind"] as? Int == 2)
            #expect(listed[0]["last_seen_at"] as? String == RFC3339.string(from: clock.now()))

            // Another account sees none of them.
            #expect(try await Self.devices(harness, token: harness.newUser().token).isEmpty)
            // A header this server cannot read is refused, saying the form.
            let malformed = try await harness.send(
                "GET", "/api/v1/event-types", headers: [DeviceHeader.headerName: "phone"])
            #expect(malformed.status == 400 && malformed.text.contains("UUID; client=NAME/VERSION"))
        }
    }

    @Test(
        "api-v1 §16 a revoked device gets 401 device_revoked on every request, its account's other devices do not; 404 for an unknown device, 204 again for a revoked one"
    )
    func revokedDeviceIsRefused() async throws {
        try await ServerHarness.with { harness in
            let (lost, kept) = (UUID(), UUID())
            for device in [lost, kept] {
                #expect(
                    try await harness.send("GET", "/api/v1/event-types", headers: Self.device(device)).status == 200)
            }
            let path = "/api/v1/devices/\(lost.uuidString.lowercased())"
            #expect(try await harness.send("DELETE", path, headers: Self.device(kept)).status == 204)
            let refused = try await harness.send(
                "POST", "/api/v1/event-types", json: ##"{"name":"X","color":"#000000","icon":"i"}"##,
                headers: Self.device(lost).merging(["Idempotency-Key": UUID().uuidString]) { $1 })
            #expect(refused.status == 401 && refused.problemType == "device_revoked")
            #expect(refused.headers["www-authenticate"] == "Bearer")
            #expect(try await harness.feedCount() == 0, "nothing written")
            #expect(try await harness.send("GET", "/api/v1/changes", headers: Self.device(lost)).status == 401)
            #expect(try await harness.send("GET", "/api/v1/event-types", headers: Self.device(kept)).status == 200)
            #expect(try await harness.send("DELETE", path).status == 204)
            let unknown = try await harness.send("DELETE", "/api/v1/devices/\(UUID().uuidString.lowercased())")
            #expect(unknown.status == 404)
            let listed = try await Self.devices(harness)
            let revoked = listed.first { $0["id"] as? String == lost.uuidString.lowercased() }
            #expect(revoked?["revoked_at"] is String)
        }
    }

    @Test("api-v1 §2.2 §16 a client past its rate limit records no device, whatever ids it sends")
    func rateLimitComesFirst() async throws {
        let (configuration, clock) = manualClockConfiguration { $0.rateLimitPerMinute = 3 }
        try await ServerHarness.with(configuration) { harness in
            var statuses: [Int] = []
            for _ in 1...6 {
                statuses.append(
                    try await harness.send("GET", "/api/v1/event-types", headers: Self.device(UUID())).status)
            }
            #expect(statuses == [200, 200, 200, 429, 429, 429])
            clock.advance(by: 60)
            #expect(try await Self.devices(harness).count == 3)
        }
    }

    @Test(
        "api-v1 §16 beyond --max-devices-per-user a new device makes the server forget the least recently seen, which no longer holds back compaction; a revoked one stays refused and uncounted"
    )
    func keepsAtMostTheCap() async throws {
        let (configuration, clock) = manualClockConfiguration { $0.maxDevicesPerUser = 2 }
        try await ServerHarness.with(configuration) { harness in
            let (old, revoked, middle, recent) = (UUID(), UUID(), UUID(), UUID())
            let type = try await harness.eventType("Coffee")
            #expect(try await harness.send("GET", "/api/v1/changes?since=0", headers: Self.device(old)).status == 200)
            for device in [revoked, middle] {
                clock.advance(by: 60)
                #expect(
                    try await harness.send("GET", "/api/v1/event-types", headers: Self.device(device)).status == 200)
                if device == revoked {
                    let path = "/api/v1/devices/\(revoked.uuidString.lowercased())"
                    #expect(try await harness.send("DELETE", path).status == 204)
                }
            }
            #expect(try await Self.devices(harness).count == 3, "two not revoked: at the cap, nothing forgotten")

            clock.advance(by: 60)
            #expect(try await harness.send("GET", "/api/v1/event-types", headers: Self.device(recent)).status == 200)
            let listed = try await Self.devices(harness).compactMap { $0["id"] as? String }
            #expect(listed == [recent, middle, revoked].map { $0.uuidString.lowercased() }, "the oldest is forgotten")
            // The revoked device, kept past the cap, is still refused.
            let refused = try await harness.send("GET", "/api/v1/event-types", headers: Self.device(revoked))
            #expect(refused.status == 401 && refused.problemType == "device_revoked")

            // The forgotten device's range no longer holds back compaction: of two changes, the older goes.
            let edit = try await harness.send("PUT", "/api/v1/event-types/\(type)", json: ##"{"color":"#123456"}"##)
            #expect(edit.status == 200)
            clock.advance(by: 60)
            let report = try await harness.server.compactChangeLog(writtenBefore: clock.now().millisecondsSince1970)
            #expect(report.removed == 1)

            // Back, it is recorded anew, as first seen now, and the least recently seen other goes in its place.
            clock.advance(by: 60)
            #expect(try await harness.send("GET", "/api/v1/event-types", headers: Self.device(old)).status == 200)
            let again = try await Self.devices(harness)
            #expect(
                again.compactMap { $0["id"] as? String } == [old, recent, revoked].map { $0.uuidString.lowercased() })
            #expect(again.first?["first_seen_at"] as? String == RFC3339.string(from: clock.now()))
        }
    }

    @Test("api-v1 §16 §13 revoking a device ends its open stream at once with event: reauth")
    func revokeEndsTheStream() async throws {
        try await LiveTrendyServer.with { server in
            let user = server.newUser()
            let phone = UUID()
            let client = APIClient(
                configuration: try APIClient.Configuration(
                    serverRoot: server.root, device: DeviceHeader(id: phone, client: "test/1")),
                tokenProvider: StaticTokenProvider(user.token))
            let recorder = StreamRecorder(client.changeStream(since: 0))
            try await recorder.wait { $0.isOpened }
            let other = APIClient(
                configuration: try APIClient.Configuration(serverRoot: server.root),
                tokenProvider: StaticTokenProvider(user.token))
            #expect(try await other.devices().devices.first?.streaming == true)
            try await other.revokeDevice(id: phone)
            try await recorder.wait { $0.events.last == .reauth }
            // The engine's next request is refused, and the client knows why.
            await #expect(throws: NetworkError.self) { _ = try await client.getEventTypes() }
            #expect(client.deviceRevoked && !other.deviceRevoked)
            recorder.cancel()
        }
    }

    @Test(
        "api-v1 §6.8 §16 compaction keeps the changes of a known device's feed range, so its cursor resumes; an expired device's position, and one no device held, are refused 410"
    )
    func compactionKeepsKnownPositions() async throws {
        let (configuration, clock) = manualClockConfiguration { $0.deviceExpiryDays = 30 }
        try await ServerHarness.with(configuration) { harness in
            let (known, expiring) = (UUID(), UUID())
            let type = try await harness.eventType("Coffee")
            for color in ["#111111", "#222222", "#333333", "#444444"] {
                let edit = try await harness.send(
                    "PUT", "/api/v1/event-types/\(type)", json: ##"{"color":"\##(color)"}"##)
                #expect(edit.status == 200)
            }
            let feed = try await CompactionTests.feed(harness)
            let times = try await Self.times(harness)
            // `known` pulled from the second change and was sent the third; `expiring` pulled from the first.
            let second = feed.entries[1].id
            let third = feed.entries[2].id
            let page = try await harness.send(
                "GET", "/api/v1/changes?since=\(second)&limit=1&since_created_at=\(times[second] ?? "")",
                headers: Self.device(known))
            #expect(page.status == 200 && page.json?["next_cursor"] as? Int == third)
            #expect(
                try await harness.send(
                    "GET", "/api/v1/changes?since=0&limit=1", headers: Self.device(expiring)
                ).status == 200)
            clock.advance(by: 20 * 86_400)
            // `known` is seen again (any request); `expiring` is not, and expires at 30 days.
            #expect(try await harness.send("GET", "/api/v1/event-types", headers: Self.device(known)).status == 200)
            clock.advance(by: 11 * 86_400)

            let report = try await harness.server.compactChangeLog(writtenBefore: clock.now().millisecondsSince1970)
            // Of five changes of one type, the newest stays and `known`'s range (second, third) with it.
            #expect(report.removed == 2)
            let kept = try await CompactionTests.feed(harness).entries.map(\.id)
            #expect(kept == [second, third, feed.entries[4].id])

            for (cursor, device) in [(second, known), (third, known)] {
                let resumed = try await harness.send(
                    "GET", "/api/v1/changes?since=\(cursor)&since_created_at=\(times[cursor] ?? "")",
                    headers: Self.device(device))
                #expect(resumed.status == 200, "\(resumed.text)")
            }
            let listed = try await Self.devices(harness)
            #expect(
                listed.first { $0["id"] as? String == expiring.uuidString.lowercased() }?["expired"] as? Bool == true)
            // The expired device's position is gone: it bootstraps (api-v1 §6.5), seen again from now on.
            let first = feed.entries[0].id
            let expired = try await harness.send(
                "GET", "/api/v1/changes?since=\(first)&since_created_at=\(times[first] ?? "")",
                headers: Self.device(expiring))
            #expect(expired.status == 410 && expired.problemType == "cursor_expired")
            #expect(expired.text.contains("no longer kept"))
            // So is a write from it, and from any position compaction removed.
            let write = try await harness.send(
                "PUT", "/api/v1/event-types/\(type)", json: #"{"icon":"leaf"}"#,
                headers: [
                    FeedPosition.headerName: "\(feed.entries[3].id); created_at=\(times[feed.entries[3].id] ?? "")"
                ])
            #expect(write.status == 410 && write.problemType == "cursor_expired")
        }
    }

    /// Each change's `created_at`, by id.
    static func times(_ harness: ServerHarness) async throws -> [Int: String] {
        let response = try await harness.send("GET", "/api/v1/changes?since=0&limit=500")
        var times: [Int: String] = [:]
        for change in (response.json?["changes"] as? [[String: Any]]) ?? [] {
            if let id = change["id"] as? Int, let time = change["created_at"] as? String { times[id] = time }
        }
        return times
    }
}
