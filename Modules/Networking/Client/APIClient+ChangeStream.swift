import AsyncHTTPClient
import Foundation
import Models
import NIOCore
import NIOHTTP1
import Protocols

extension APIClient {
    /// Seconds without a byte after which an open stream counts as dead: three of the server's keep-alives
    /// (api-v1 §13 sends `: ping` after 15 s of quiet).
    static let streamIdleTimeout: Int64 = 45

    /// N9. `GET /api/v1/changes/stream` with `Last-Event-ID: cursor` (api-v1 §13), and `since_created_at` when the
    /// position has its time (api-v1 §6.5): `.opened`, then each entry as the server sends it. One connection: the
    /// stream finishes when the server closes it (after `reset` or `reauth`, or at shutdown) and throws `NetworkError`
    /// when it cannot open (`http` with the status: 404 on a server without the route, 410, 429 `stream_limit`, 401
    /// after one token refresh) or drops (`transport`, also after 45 s without a byte). The caller reconnects from the
    /// last entry it applied (sync-engine R12). Cancelling the consuming task closes the connection.
    ///
    /// Over async-http-client, not URLSession: swift-corelibs-foundation does deliver a chunked body to a data
    /// delegate as it arrives, but a transfer that stays open with a timeout set keeps libcurl's timer firing on
    /// libdispatch — an idle stream cost 40–60 % of a core (measured 2026-11-25: 394–545 ticks of CPU in 10 s; none
    /// with this client). Without a timeout URLSession delivered nothing.
    public func changeStream(from position: FeedPosition) -> AsyncThrowingStream<StreamEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var token = await tokenProvider.currentToken()
                var refreshed = false
                while true {
                    switch await openStream(from: position, token: token, continuation) {
                    case .unauthorized(let failure):
                        guard !refreshed else { return continuation.finish(throwing: NetworkError.http(failure)) }
                        refreshed = true
                        token = await tokenProvider.refreshToken()
                    case .failed(let error): return continuation.finish(throwing: error)
                    case .ended: return continuation.finish()
                    }
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    enum StreamEnd: Sendable {
        case ended
        case unauthorized(HTTPFailure)
        case failed(NetworkError)
    }

    /// One connection, until it ends.
    private func openStream(
        from position: FeedPosition, token: String?,
        _ continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation
    ) async -> StreamEnd {
        guard
            let url = Endpoint.get("changes/stream", query: position.query).url(
                root: configuration.serverRoot.url)
        else { return .failed(.invalidResponse) }
        let requestId = UUID().uuidString.lowercased()
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "text/event-stream")
        request.headers.add(name: "Last-Event-ID", value: "\(position.cursor)")
        request.headers.add(name: "X-Request-ID", value: requestId)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let device = configuration.device {
            request.headers.add(name: DeviceHeader.headerName, value: device.header)
        }
        var settings = HTTPClient.Configuration()
        settings.timeout = .init(
            connect: .seconds(Int64(configuration.requestTimeout)), read: .seconds(Self.streamIdleTimeout))
        settings.redirectConfiguration = .disallow
        settings.connectionPool.retryConnectionEstablishment = false  // the engine reconnects with its own backoff
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        countSentRequest()
        let end = await receive(request, on: http, requestId: requestId, continuation)
        try? await http.shutdown()
        return end
    }

    private func receive(
        _ request: HTTPClientRequest, on http: HTTPClient, requestId: String,
        _ continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation
    ) async -> StreamEnd {
        do {
            let response = try await http.execute(request, deadline: .distantFuture)
            noteFeatures(response.headers.first(name: ServerFeatures.headerName))
            noteHistory(response.headers.first(name: ServerHistory.headerName))
            let status = Int(response.status.code)
            if (300..<400).contains(status) {
                return .failed(
                    .transport(
                        RedirectRefusal.message(status: status, location: response.headers.first(name: "Location"))))
            }
            guard status == 200 else {
                let body = try await response.body.collect(upTo: 64 * 1024)
                let failure = FailureParsing.failure(
                    status: status, body: Data(body.readableBytesView),
                    retryAfterHeader: response.headers.first(name: "Retry-After"), requestId: requestId,
                    now: clock.now())
                noteFailure(failure)
                return status == 401 ? .unauthorized(failure) : .failed(.http(failure))
            }
            continuation.yield(.opened)
            var parser = ServerSentEventParser()
            for try await buffer in response.body {
                for event in parser.feed(buffer.readableBytesView) {
                    do {
                        if let decoded = try StreamEventDecoding.decode(event) { continuation.yield(decoded) }
                    } catch {
                        return .failed(.decoding(status: 200, message: "a change stream event: \(error)"))
                    }
                }
            }
            // A body that stops inside an event was cut, not closed: the caller reconnects either way.
            return parser.hasPartialInput ? .failed(.transport("the stream ended in the middle of an event")) : .ended
        } catch {
            if Task.isCancelled || error is CancellationError { return .failed(.cancelled) }
            return .failed(.transport(Self.describe(streamError: error)))
        }
    }

    private static func describe(streamError error: any Error) -> String {
        switch error as? HTTPClientError {
        case .readTimeout?: "no data from the change stream for \(streamIdleTimeout) s"
        case .connectTimeout?: "the connection timed out"
        case .remoteConnectionClosed?: "the server closed the connection"
        default: "\(error)"
        }
    }
}

/// The stream event of one Server-Sent Event of api-v1 §13.
enum StreamEventDecoding {
    /// Nil for an event type this client does not know (ignored, so a newer server can add some).
    static func decode(_ event: ServerSentEventParser.Event) throws -> StreamEvent? {
        switch event.type {
        case "change":
            let bytes = Array(event.data.utf8)
            do {
                return .change(try ChangeEntry(json: try JSONText.parse(bytes)))
            } catch {
                // Ids beyond 2^53: the exact decoder.
                return .change(try JSONCoding.decode(ChangeEntry.self, from: Data(bytes)))
            }
        case "reset":
            let reason = (try? JSONText.parse(Array(event.data.utf8)))?["reason"]?.stringValue
            return .reset(reason: reason ?? "cursor_expired")
        case "reauth": return .reauth
        default: return nil
        }
    }
}
