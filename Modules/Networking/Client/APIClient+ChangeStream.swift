import Foundation
import Models
import Protocols
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension APIClient {
    /// Seconds without a byte after which an open stream counts as dead: three of the server's keep-alives
    /// (api-v1 §13 sends `: ping` after 15 s of quiet).
    static let streamIdleTimeout: TimeInterval = 45

    /// N9. `GET /api/v1/changes/stream` with `Last-Event-ID: cursor` (api-v1 §13): `.opened`, then each entry as
    /// the server sends it. One connection: the stream finishes when the server closes it (after `reset` or
    /// `reauth`, or at shutdown) and throws `NetworkError` when it cannot open (`http` with the status: 404 on a
    /// server without the route, 410, 429 `stream_limit`, 401 after one token refresh) or drops (`transport`).
    /// The caller reconnects from the last entry it applied (sync-engine R12). Cancelling the consuming task closes
    /// the connection.
    ///
    /// URLSession on Linux delivers a chunked body to a data delegate as it arrives (measured: an event reaches
    /// the delegate within a millisecond of being written), so the stream needs no other HTTP client.
    public func changeStream(since cursor: Int64) -> AsyncThrowingStream<StreamEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var token = await tokenProvider.currentToken()
                var refreshed = false
                while true {
                    switch await openStream(since: cursor, token: token, continuation) {
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
        since cursor: Int64, token: String?, _ continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation
    ) async -> StreamEnd {
        guard
            let url = Endpoint.get("changes/stream", query: [("since", "\(cursor)")]).url(
                root: configuration.serverRoot.url)
        else { return .failed(.invalidResponse) }
        let requestId = UUID().uuidString.lowercased()
        var request = URLRequest(url: url, timeoutInterval: Self.streamIdleTimeout)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("\(cursor)", forHTTPHeaderField: "Last-Event-ID")
        request.setValue(requestId, forHTTPHeaderField: "X-Request-ID")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = Self.streamIdleTimeout
        sessionConfiguration.timeoutIntervalForResource = 7 * 86_400
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        let delegate = StreamDelegate(continuation: continuation) { [weak self] header in
            self?.noteFeatures(header)
        }
        let session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        countSentRequest()
        let handle = TransferHandle()
        let end = await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<StreamDelegate.Completion, Never>) in
                delegate.onComplete(done)
                handle.start(session.dataTask(with: request))
            }
        } onCancel: {
            handle.cancel()
        }
        switch end {
        case .finished(let partial):
            // A body that stops inside an event was cut, not closed: the caller reconnects either way.
            return partial ? .failed(.transport("the stream ended in the middle of an event")) : .ended
        case .refused(let status, let body, let retryAfter):
            let failure = FailureParsing.failure(
                status: status, body: body, retryAfterHeader: retryAfter, requestId: requestId, now: clock.now())
            return status == 401 ? .unauthorized(failure) : .failed(.http(failure))
        case .failed(let error):
            if Task.isCancelled || (error as? URLError)?.code == .cancelled { return .failed(.cancelled) }
            return .failed(.transport((error as? URLError).map(Self.describe) ?? "\(error)"))
        case .undecodable(let message):
            return .failed(.decoding(status: 200, message: message))
        }
    }
}

/// Receives one stream's bytes on URLSession's queue and yields its events.
///
/// `Sendable` through its `Mutex`: URLSession calls a delegate on its own serial queue, and the completion waiter
/// is registered from the caller's task.
final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    enum Completion: Sendable {
        /// The server closed a 200 stream; `partial` when it stopped inside an event.
        case finished(partial: Bool)
        case refused(status: Int, body: Data, retryAfter: String?)
        case failed(any Error)
        case undecodable(String)
    }

    private struct State {
        var parser = ServerSentEventParser()
        var status = 0
        var retryAfter: String?
        var errorBody = Data()
        var undecodable: String?
        var completion: Completion?
        var waiter: CheckedContinuation<Completion, Never>?
    }

    private let state = Mutex(State())
    private let continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation
    private let features: @Sendable (String?) -> Void

    init(
        continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation,
        features: @escaping @Sendable (String?) -> Void
    ) {
        self.continuation = continuation
        self.features = features
    }

    func onComplete(_ waiter: CheckedContinuation<Completion, Never>) {
        let done = state.withLock { state -> Completion? in
            if let completion = state.completion { return completion }
            state.waiter = waiter
            return nil
        }
        if let done { waiter.resume(returning: done) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        state.withLock { state in
            state.status = status
            state.retryAfter = http?.value(forHTTPHeaderField: "Retry-After")
        }
        features(http?.value(forHTTPHeaderField: ServerFeatures.headerName))
        if status == 200 { continuation.yield(.opened) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events: [StreamEvent] = state.withLock { state in
            guard state.status == 200 else {
                if state.errorBody.count < 64 * 1024 { state.errorBody.append(data) }
                return []
            }
            guard state.undecodable == nil else { return [] }
            var decoded: [StreamEvent] = []
            for event in state.parser.feed(data) {
                do {
                    if let streamEvent = try Self.decode(event) { decoded.append(streamEvent) }
                } catch {
                    state.undecodable = "a change stream event: \(error)"
                    dataTask.cancel()
                    break
                }
            }
            return decoded
        }
        for event in events { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (waiter, completion) = state.withLock { state -> (CheckedContinuation<Completion, Never>?, Completion) in
            let completion: Completion
            if let message = state.undecodable {
                completion = .undecodable(message)
            } else if state.status != 200 && state.status != 0 {
                completion = .refused(status: state.status, body: state.errorBody, retryAfter: state.retryAfter)
            } else if let error {
                completion = .failed(error)
            } else {
                completion = .finished(partial: state.parser.hasPartialInput)
            }
            state.completion = completion
            defer { state.waiter = nil }
            return (state.waiter, completion)
        }
        waiter?.resume(returning: completion)
    }

    /// The stream event of one SSE event; nil for an event type this client does not know (ignored, so a newer
    /// server can add some).
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
