import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - The change stream (api-v1 §13; sync-engine R12, R14 N9)

extension NetworkClientContract {
    static let streamChecks: [Check] = [
        check("N9 api-v1 §13 the stream opens, sends the backlog, then each commit once, in id order, only the user's")
        {
            subject in
            let client = subject.client
            _ = try await client.getLatestCursor()
            #expect(client.serverFeatures?.has(ServerFeatures.stream) == true, "the server announces `stream`")
            let first = try await eventType(client)
            let recorder = StreamRecorder(client.changeStream(since: 0))
            defer { recorder.cancel() }
            let backlog = try await recorder.waitForChanges(1)
            #expect(recorder.snapshot.events.first == .opened, "`opened` comes first")
            #expect(backlog.map(\.entityId) == [first.id])

            // Live: another user's write never shows; this user's writes arrive in order.
            _ = try await eventType(subject.otherUser)
            let second = try await eventType(client)
            let created = try await client.createEventsBatch(
                [event(type: second.id, at: instant(5)), event(type: first.id, at: instant(6))],
                idempotencyKey: key())
            try await client.deleteEventType(id: first.id)
            let latest = try await client.getLatestCursor()
            let changes = try await recorder.wait { ($0.changes.last?.id ?? 0) >= latest }.changes
            let feed = try await client.getChanges(since: 0, limit: 500).changes
            #expect(changes == feed, "the stream carries exactly the feed's entries")
            #expect(changes.map(\.id) == changes.map(\.id).sorted() && Set(changes.map(\.id)).count == changes.count)
            #expect(Set(created.created.map { $0.id.lowercased() }).isSubset(of: Set(changes.map(\.entityId))))
            #expect(recorder.snapshot.end == nil, "the stream stays open")
        },
        check("N9 api-v1 §13 a stream from a cursor starts after it (the reconnect after an applied entry)") {
            subject in
            let client = subject.client
            for _ in 0..<3 { _ = try await eventType(client) }
            let feed = try await client.getChanges(since: 0, limit: 10).changes
            #expect(feed.count == 3)
            let recorder = StreamRecorder(client.changeStream(since: feed[1].id))
            defer { recorder.cancel() }
            let changes = try await recorder.waitForChanges(1)
            #expect(changes.map(\.id) == [feed[2].id])
            let fourth = try await eventType(client)
            let more = try await recorder.waitForChanges(2)
            #expect(more.map(\.entityId) == [feed[2].entityId, fourth.id])
        },
        check("N9 api-v1 §13 two streams of one user each get every entry") { subject in
            let client = subject.client
            let one = StreamRecorder(client.changeStream(since: 0))
            let two = StreamRecorder(client.changeStream(since: 0))
            defer {
                one.cancel()
                two.cancel()
            }
            try await one.wait { $0.isOpened }
            try await two.wait { $0.isOpened }
            let type = try await eventType(client)
            #expect(try await one.waitForChanges(1).map(\.entityId) == [type.id])
            #expect(try await two.waitForChanges(1).map(\.entityId) == [type.id])
        },
    ]
}

// MARK: - The change stream's failures (api-v1 §13; sync-engine R12)

extension NetworkClientContract {
    static let streamFaultChecks: [Check] = [
        check(
            "N9 api-v1 §13 a connection cut inside an event: the stream fails, no partial entry, a reconnect gets the rest once"
        ) {
            subject in
            let (client, faults) = (subject.client, try #require(subject.streamFaults))
            let recorder = StreamRecorder(client.changeStream(since: 0))
            defer { recorder.cancel() }
            let first = try await eventType(client)
            #expect(try await recorder.waitForChanges(1).map(\.entityId) == [first.id])
            faults.script(.cutMidEvent)
            let second = try await eventType(client)
            let end = try await recorder.waitForEnd()
            guard case .failure(.transport) = end else {
                Issue.record("a cut stream fails with a transport error, not \(end)")
                return
            }
            #expect(recorder.snapshot.changes.map(\.entityId) == [first.id], "nothing of the cut entry arrives")

            // The reconnect from the last entry applied gets the cut entry, once, then the next commits.
            let cursor = try #require(recorder.snapshot.changes.last?.id)
            let again = StreamRecorder(client.changeStream(since: cursor))
            defer { again.cancel() }
            #expect(try await again.waitForChanges(1).map(\.entityId) == [second.id])
            let third = try await eventType(client)
            #expect(try await again.waitForChanges(2).map(\.entityId) == [second.id, third.id])
        },
        check("N9 api-v1 §13 reset: the stream delivers reset(cursor_expired) instead of entries, then closes cleanly")
        {
            subject in
            let (client, faults) = (subject.client, try #require(subject.streamFaults))
            let recorder = StreamRecorder(client.changeStream(since: 0))
            defer { recorder.cancel() }
            try await recorder.wait { $0.isOpened }
            faults.script(.reset)
            _ = try await eventType(client)
            guard case .success = try await recorder.waitForEnd() else {
                Issue.record("a reset closes the stream cleanly: \(String(describing: recorder.snapshot.end))")
                return
            }
            #expect(recorder.snapshot.events == [.opened, .reset(reason: "cursor_expired")])
        },
        check("N9 R12 a server without the stream route: no `stream` announced, and the stream fails with 404") {
            subject in
            let client = try #require(subject.streamFaults).clientWithoutStreamRoute()
            _ = try await client.getLatestCursor()
            #expect(client.serverFeatures?.has(ServerFeatures.stream) != true)
            let recorder = StreamRecorder(client.changeStream(since: 0))
            defer { recorder.cancel() }
            guard case .failure(.http(let failure)) = try await recorder.waitForEnd() else {
                Issue.record("the stream fails with an HTTP error: \(String(describing: recorder.snapshot.end))")
                return
            }
            #expect(failure.status == 404)
            #expect(recorder.snapshot.changes.isEmpty)
        },
    ]
}
