import Foundation
import HTTPTypes
import Hummingbird
import Models
import NIOCore
import Protocols
import ServiceLifecycle
import Synchronization

/// `GET /api/v1/changes/stream` (api-v1 §13): the user's change entries as Server-Sent Events, the backlog first,
/// then each commit as it happens.
///
/// The stream subscribes before it reads the backlog, so a commit between the two is read by the next wake-up, and
/// it always sends what it reads from the database above its position, never what a notification said: entries go
/// out once, in id order, whichever instance committed them.
enum ChangeStream {
    /// Rows read per query, for the backlog and for each wake-up.
    static let pageSize = 500

    static func respond(_ request: Request, _ context: APIContext, _ pipeline: Pipeline) async throws -> Response {
        guard pipeline.dialect.servesStreamAndDigest else { throw APIError.notFound("route") }
        let user = context.userId
        let query = request.uri.queryParameters
        let lastEventId = request.headers[.lastEventID]
        let since = try ChangeFeed.cursor(lastEventId ?? query["since"].map(String.init), dialect: .ours)
        // The time names the change of `since`: a `Last-Event-ID` an SSE client moved on alone is not checked.
        let createdAt =
            lastEventId == nil || lastEventId == query["since"].map(String.init)
            ? try ChangeFeed.createdAt(query[FeedPosition.createdAtParameter[...]].map(String.init)) : nil
        let latest = try await pipeline.storage.read { db in
            let watermark = try ChangeFeed.checkPosition(since, createdAt: createdAt, user: user, db)
            return try ChangeFeed.latestCursor(user: user, db, watermark: watermark)
        }
        if since > latest { throw APIError.cursorAhead(since) }
        let authorization = request.headers[.authorization]
        let expiry = pipeline.authenticator.expiry(authorization: authorization)
        let subscription = try pipeline.streams.open(user: user)
        let progress = StreamProgress(device: context.device, start: since)
        // The slot is freed when the connection closes, whether or not the answer ever began.
        context.channel.closeFuture.whenComplete { [streams = pipeline.streams] _ in streams.close(subscription) }
        if let device = context.device {
            do {
                try await pipeline.devices.streamOpened(device, cursor: since)
            } catch {
                pipeline.streams.close(subscription)
                throw error
            }
            // After the open is written, so the close is never recorded before it.
            context.channel.closeFuture.whenComplete { [devices = pipeline.devices] _ in
                Task { await progress.recordClose(devices) }
            }
        }
        await limitUnacknowledgedTime(context.channel, pipeline.configuration)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.xAccelBuffering] = "no"
        let stream = Session(
            pipeline: pipeline, subscription: subscription, progress: progress, expiry: expiry,
            authorization: authorization, channel: context.channel)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { pipeline.streams.close(subscription) }
                do {
                    // The client closing its end is seen at once, not at the next keep-alive write.
                    try await request.body.consumeWithInboundCloseHandler { _ in
                        try await withGracefulShutdownHandler {
                            try await stream.run(&writer)
                        } onGracefulShutdown: {
                            subscription.ring(.closed)
                        }
                    } onInboundClosed: {
                        subscription.ring(.closed)
                    }
                } catch {
                    await progress.recordClose(pipeline.devices)
                    throw error
                }
                await progress.recordClose(pipeline.devices)
                try await writer.finish(nil)
            })
    }

    /// How far a stream got, for its device's feed range (api-v1 §16), recorded once when it ends: by its answer's
    /// end, or by the connection's close when the answer never began.
    final class StreamProgress: Sendable {
        let device: DeviceRegistry.Key?
        /// The last change id written to the stream.
        let sent: Atomic<Int64>
        private let closeRecorded = Atomic<Bool>(false)

        init(device: DeviceRegistry.Key?, start: Int64) {
            self.device = device
            sent = Atomic(start)
        }

        func recordClose(_ devices: DeviceRegistry) async {
            guard let device, !closeRecorded.exchange(true, ordering: .acquiringAndReleasing) else { return }
            // Best effort: a range left open only keeps more of the log until the device's next stream or expiry.
            try? await devices.streamClosed(device, sent: sent.load(ordering: .acquiring))
        }
    }

    /// A peer that stops acknowledging what the stream writes (unplugged, out of range, its reset lost) is dropped
    /// once its oldest unacknowledged byte is two keep-alive intervals old (`TCP_USER_TIMEOUT`), so its slot is freed
    /// within three intervals of its last acknowledgment (45 s by default) instead of the kernel's 15 minutes of
    /// retransmissions. Best effort: a socket that refuses the option keeps the kernel's default.
    static func limitUnacknowledgedTime(_ channel: any Channel, _ configuration: ServerConfiguration) async {
        #if os(Linux)
            let milliseconds = Int32(clamping: 2 * 1000 * max(1, configuration.streamKeepaliveSeconds))
            let option = ChannelOptions.Types.SocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: Int32(IPPROTO_TCP)),
                name: NIOBSDSocket.Option(rawValue: Int32(TCP_USER_TIMEOUT)))
            try? await channel.setOption(option, value: SocketOptionValue(milliseconds)).get()
        #endif
    }

    /// One open stream, from where `progress` starts (the entry after it is the first it sends).
    struct Session: Sendable {
        let pipeline: Pipeline
        let subscription: StreamSubscription
        let progress: StreamProgress
        let expiry: Date?
        /// The `Authorization` the stream was opened with, checked again when the tokens are reloaded.
        let authorization: String?
        /// Closed by `--fault-stream-cut` in the middle of a batch.
        let channel: any Channel

        func run(_ writer: inout any ResponseBodyWriter) async throws {
            var position = progress.sent.load(ordering: .acquiring)
            var lastWrite = pipeline.configuration.clock.now()
            // A comment first: the client knows the stream is open before any entry.
            try await writer.write(ByteBuffer(string: ": open\n\n"))
            // The stream is registered now, so a later reload rings it; one that came between the request's
            // authentication and the registration is caught here.
            if !tokenNamesUser(now: lastWrite) || deviceRevoked { return try await reauth(&writer) }
            if try await sendNew(after: &position, &writer) != .sent { return }
            while true {
                let pending = await subscription.next()
                if pending.closed { return }
                let now = pipeline.configuration.clock.now()
                let expired = expiry.map { now >= $0 } ?? false
                if expired || (pending.credentials && !tokenNamesUser(now: now)) || deviceRevoked {
                    return try await reauth(&writer)
                }
                if pending.changed, pending.unknownChange || (pending.highest ?? 0) > position {
                    let before = position
                    if try await sendNew(after: &position, &writer) != .sent { return }
                    if position != before { lastWrite = pipeline.configuration.clock.now() }
                }
                let idle = now.timeIntervalSince(lastWrite) >= Double(pipeline.configuration.streamKeepaliveSeconds)
                if pending.probe || (pending.tick && idle) {
                    try await writer.write(ByteBuffer(string: ": ping\n\n"))
                    lastWrite = now
                }
            }
        }

        /// False once the stream's token no longer names the stream's user: a static token removed, or given to
        /// another user, by a reload (api-v1 §13, Re-auth). Asked when the tokens change, not every second: only a
        /// reload changes a static token's answer, and a JWT's `exp` is `expiry`.
        private func tokenNamesUser(now: Date) -> Bool {
            (try? pipeline.authenticator.authenticate(authorization: authorization, now: now)) == subscription.user
        }

        /// The stream's device was revoked (api-v1 §16): here at once (a ring), on another instance within a second.
        private var deviceRevoked: Bool {
            progress.device.map(pipeline.devices.isRevoked) ?? false
        }

        /// `event: reauth`, after which the stream ends: the client authenticates again (sync-engine R12).
        private func reauth(_ writer: inout any ResponseBodyWriter) async throws {
            try await writer.write(ByteBuffer(string: "event: reauth\ndata: {}\n\n"))
        }

        enum Progress { case sent, reset, cut }

        /// Sends every entry above `position`, a page at a time; `reset` (and the event) when the retention
        /// watermark has passed it.
        private func sendNew(
            after position: inout Int64, _ writer: inout any ResponseBodyWriter
        ) async throws
            -> Progress
        {
            let user = subscription.user
            let streams = pipeline.streams
            while true {
                let since = position
                // Streams of one user woken by one commit sit at one position: the first reads, the others send
                // its bytes — valid when it was read after every commit this stream was woken for.
                let needed = streams.commits(of: user)
                let storage = pipeline.storage
                let page = try await streams.page(user: user, since: since, readAfter: needed) {
                    try await storage.read { db -> Page in
                        if since < (try ChangeFeed.watermark(user: user, db)) { return Page(reset: true) }
                        var page = Page()
                        try db.forEachRow(
                            ChangeEntryText.select + " WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?",
                            [user, since, ChangeStream.pageSize]
                        ) { row in
                            page.count += 1
                            page.last = ChangeEntryText.id(row)
                            page.text.append(contentsOf: "id: \(page.last)\nevent: change\ndata: ".utf8)
                            ChangeEntryText.write(row, into: &page.text)
                            page.text.append(contentsOf: "\n\n".utf8)
                            return true
                        }
                        return page
                    }
                }
                if let progress = try await send(page, &position, &writer) { return progress }
            }
        }

        /// Writes one page; the end of `sendNew` when there is nothing more to read, else nil.
        private func send(
            _ page: Page, _ position: inout Int64, _ writer: inout any ResponseBodyWriter
        ) async throws -> Progress? {
            do {
                let scripted =
                    page.count > 0 ? pipeline.configuration.testHooks.scriptedStreamFault?(subscription.user) : nil
                if page.reset || scripted == .reset {
                    try await writer.write(
                        ByteBuffer(string: "event: reset\ndata: {\"reason\":\"cursor_expired\"}\n\n"))
                    return .reset
                }
                guard page.count > 0 else { return .sent }
                if scripted == .cutMidEvent || pipeline.faults?.cutsStream() == true {
                    // A dropped connection mid-event: half the batch goes out, then the connection closes.
                    try await writer.write(ByteBuffer(bytes: page.text.prefix(page.text.count / 2)))
                    try? await channel.close()
                    return .cut
                }
                try await writer.write(ByteBuffer(bytes: page.text))
                position = page.last
                progress.sent.store(page.last, ordering: .releasing)
                pipeline.metrics.streamed(changes: page.count)
                return page.count < ChangeStream.pageSize ? .sent : nil
            }
        }
    }

    struct Page: Sendable {
        var reset = false
        var count = 0
        var last: Int64 = 0
        var text: [UInt8] = []
    }
}
