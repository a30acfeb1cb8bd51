import Foundation
import Logging
import Models
import Protocols
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension APIClient {
    /// A 2xx answer.
    struct Answer {
        let status: Int
        let body: Data
        /// `Idempotency-Replayed: true` or `X-Idempotency-Replayed: true` (api-v1 §7).
        var replayed = false
        /// The `X-Next-After` token of a keyset page (api-v1 §5.3.1).
        var nextAfter: String? = nil
    }

    /// Sends `endpoint` with the retries of sync-engine §2.3 and returns a 2xx answer, or throws `NetworkError`.
    func send(
        _ endpoint: Endpoint, accepting acceptedFailure: ((Int, Data) -> Bool)? = nil
    ) async throws(NetworkError)
        -> Answer
    {
        guard let url = endpoint.url(root: configuration.serverRoot.url) else { throw .invalidResponse }
        let requestId = UUID().uuidString.lowercased()
        var token = await tokenProvider.currentToken()
        var refreshedToken = false
        var rateLimitRetries = 0
        var waited: TimeInterval = 0
        while true {
            if Task.isCancelled { throw .cancelled }
            let request = makeRequest(endpoint, url: url, token: token, requestId: requestId)
            let started = ContinuousClock.now
            let (data, response): (Data, HTTPURLResponse)
            do {
                (data, response) = try await transfer(request)
            } catch {
                logExchange(endpoint, url: url, outcome: "\(error)", since: started, requestId: requestId)
                throw error
            }
            let status = response.statusCode
            logExchange(endpoint, url: url, outcome: "\(status)", since: started, requestId: requestId)
            noteFeatures(response.value(forHTTPHeaderField: ServerFeatures.headerName))
            if (200..<300).contains(status) || acceptedFailure?(status, data) == true {
                let replayed = [
                    response.value(forHTTPHeaderField: "Idempotency-Replayed"),
                    response.value(forHTTPHeaderField: "X-Idempotency-Replayed"),
                ]
                .contains { $0?.lowercased() == "true" }
                return Answer(
                    status: status, body: data, replayed: replayed,
                    nextAfter: response.value(forHTTPHeaderField: "X-Next-After"))
            }
            let failure = FailureParsing.failure(
                status: status, body: data, retryAfterHeader: response.value(forHTTPHeaderField: "Retry-After"),
                requestId: requestId, now: clock.now())
            switch status {
            case 401 where !refreshedToken:
                refreshedToken = true
                token = await tokenProvider.refreshToken()
            case 429 where rateLimitRetries < configuration.maxRateLimitRetries:
                rateLimitRetries += 1
                let backoff = pow(2, Double(rateLimitRetries - 1))
                let wait = max(backoff, failure.retryAfter ?? 0)
                guard waited + wait <= configuration.rateLimitWaitCap else { throw .http(failure) }
                // No silent wait: a user sees why nothing happens, and when it goes on.
                logger.notice(
                    "the server is rate limiting this client: waiting \(Self.seconds(wait)) before trying again")
                do {
                    try await clock.sleep(for: wait)
                } catch {
                    throw .cancelled
                }
                logger.notice("the rate-limit wait is over; trying again")
                waited += wait
            default:
                throw .http(failure)
            }
        }
    }

    /// `2 s`, `1.5 s`: a wait as a person reads it.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// One request on the wire at debug level: method, path with its query, status (or the transport error) and
    /// time — never a header, so never the token. `trendyctl --verbose` prints these.
    private func logExchange(
        _ endpoint: Endpoint, url: URL, outcome: String, since started: ContinuousClock.Instant, requestId: String
    ) {
        let elapsed = started.duration(to: .now)
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        let target = url.path + (url.query.map { "?" + $0 } ?? "")
        logger.debug(
            "\(endpoint.method.rawValue) \(target) \(outcome) \(String(format: "%.1f", milliseconds)) ms",
            metadata: ["request-id": "\(requestId)"])
    }

    /// Sends and decodes a 2xx JSON body; a body that does not decode is a `decoding` error.
    func send<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type) async throws(NetworkError) -> Value {
        let answer = try await send(endpoint)
        return try decode(type, from: answer)
    }

    /// As `send(_:as:)`, for a create or update answer: marks it replayed when the server says so (sync-engine R5).
    func send<Value: Decodable & ReplayableAnswer>(
        _ endpoint: Endpoint, as type: Value.Type
    ) async throws(NetworkError) -> Value {
        let answer = try await send(endpoint)
        var value = try decode(type, from: answer)
        value.replayed = answer.replayed
        return value
    }

    func decode<Value: Decodable>(_ type: Value.Type, from answer: Answer) throws(NetworkError) -> Value {
        do {
            return try JSONCoding.decode(type, from: answer.body)
        } catch {
            let preview = String(decoding: answer.body.prefix(120), as: UTF8.self)
            throw .decoding(status: answer.status, message: "expected \(Value.self): \(preview)")
        }
    }

    /// A page of events through the fast reader (`APIEvent.page(from:)`), with `decode`'s error.
    func decodeEvents(from answer: Answer) throws(NetworkError) -> [APIEvent] {
        do {
            return try APIEvent.page(from: answer.body)
        } catch {
            let preview = String(decoding: answer.body.prefix(120), as: UTF8.self)
            throw .decoding(status: answer.status, message: "expected \([APIEvent].self): \(preview)")
        }
    }

    private func makeRequest(_ endpoint: Endpoint, url: URL, token: String?, requestId: String) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: configuration.requestTimeout)
        request.httpMethod = endpoint.method.rawValue
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(requestId, forHTTPHeaderField: "X-Request-ID")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body = endpoint.body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("close", forHTTPHeaderField: "Connection")
        }
        if let key = endpoint.idempotencyKey, endpoint.method == .post || endpoint.method == .put {
            request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        }
        return request
    }

    private func transfer(_ request: URLRequest) async throws(NetworkError) -> (Data, HTTPURLResponse) {
        countSentRequest()
        let session =
            request.httpBody == nil
            ? session
            : URLSession(configuration: bodySessionConfiguration, delegate: RedirectRefusal.shared, delegateQueue: nil)
        defer { if session !== self.session { session.finishTasksAndInvalidate() } }
        let handle = TransferHandle()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TransferResult, Never>) in
                handle.start(
                    session.dataTask(with: request) { data, response, error in
                        if let error {
                            continuation.resume(returning: .failure(error))
                        } else if let data, let response {
                            continuation.resume(returning: .success((data, response)))
                        } else {
                            continuation.resume(returning: .failure(URLError(.badServerResponse)))
                        }
                    })
            }
        } onCancel: {
            handle.cancel()
        }
        let data: Data
        let response: URLResponse
        switch result {
        case .success(let answer): (data, response) = answer
        case .failure(let error):
            if Task.isCancelled || error is CancellationError || (error as? URLError)?.code == .cancelled {
                throw .cancelled
            }
            throw .transport((error as? URLError).map(Self.describe) ?? "\(error)")
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse }
        if (300..<400).contains(http.statusCode) {
            throw .transport(
                RedirectRefusal.message(status: http.statusCode, location: http.value(forHTTPHeaderField: "Location")))
        }
        return (data, http)
    }

    static func describe(_ error: URLError) -> String {
        switch error.code {
        case .timedOut: "the request timed out"
        case .cannotConnectToHost: "connection refused"
        case .networkConnectionLost: "the connection was lost before an answer arrived"
        case .badServerResponse: "the connection closed without an answer"
        case .cannotFindHost, .dnsLookupFailed: "the server's name could not be resolved"
        case .notConnectedToInternet: "no network connection"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
            "the TLS connection failed"
        default: error.localizedDescription
        }
    }
}

typealias TransferResult = Result<(Data, URLResponse), any Error>

/// One request's `URLSessionDataTask`, cancellable from any thread.
///
/// Cancellation runs on a queue of its own, never inline. Swift calls a cancellation handler while it holds the
/// cancelled task's status lock; `URLSessionTask.cancel()` then waits for the session's queue, and that queue, when
/// the answer arrives at the same moment, waits for the same status lock to resume the task: a deadlock that hung
/// a bootstrap (its prefetched page is cancelled as the listing ends) in the convergence proof, seed 7. The
/// completion-handler API with a deferred cancel has no such cycle.
final class TransferHandle: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    private let state = Mutex(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        task.resume()
        if cancelled { Self.cancelLater(task) }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        if let task { Self.cancelLater(task) }
    }

    private static func cancelLater(_ task: URLSessionDataTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
