import AsyncHTTPClient
import Foundation
import Logging
import Models
import NIOCore
import NIOHTTP1
import Protocols

extension APIClient {
    /// A 2xx answer.
    struct Answer {
        let status: Int
        let body: Data
        /// `Idempotency-Replayed: true` or `X-Idempotency-Replayed: true` (api-v1 §7).
        var replayed = false
        /// The `X-Next-After` token of a keyset page (api-v1 §5.3.1).
        var nextAfter: String? = nil
        /// A DELETE's `Trendy-Deleted-At` (api-v1 §6.6).
        var deletedAt: Date? = nil
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
            let received: Received
            do {
                received = try await transfer(request)
            } catch {
                logExchange(endpoint, url: url, outcome: "\(error)", since: started, requestId: requestId)
                throw error
            }
            let (status, data, headers) = (received.status, received.body, received.headers)
            logExchange(endpoint, url: url, outcome: "\(status)", since: started, requestId: requestId)
            noteFeatures(headers.first(name: ServerFeatures.headerName))
            noteHistory(headers.first(name: ServerHistory.headerName))
            if (200..<300).contains(status) || acceptedFailure?(status, data) == true {
                let replayed = [
                    headers.first(name: "Idempotency-Replayed"),
                    headers.first(name: "X-Idempotency-Replayed"),
                ]
                .contains { $0?.lowercased() == "true" }
                return Answer(
                    status: status, body: data, replayed: replayed, nextAfter: headers.first(name: "X-Next-After"),
                    deletedAt: headers.first(name: DeleteAnswer.headerName).flatMap(RFC3339.date(from:)))
            }
            let failure = FailureParsing.failure(
                status: status, body: data, retryAfterHeader: headers.first(name: "Retry-After"),
                requestId: requestId, now: clock.now())
            noteFailure(failure)
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

    private func makeRequest(
        _ endpoint: Endpoint, url: URL, token: String?, requestId: String
    ) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: endpoint.method.rawValue)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "X-Request-ID", value: requestId)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let device = configuration.device {
            request.headers.add(name: DeviceHeader.headerName, value: device.header)
        }
        if let body = endpoint.body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: "application/json")
            // A write gets a connection of its own, never one the server may be closing (`APIClient.http`).
            request.headers.add(name: "Connection", value: "close")
        }
        if let key = endpoint.idempotencyKey, endpoint.method == .post || endpoint.method == .put {
            request.headers.add(name: "Idempotency-Key", value: key)
        }
        if let queuedAt = endpoint.queuedAt {
            request.headers.add(
                name: ResentCreate.headerName, value: ResentCreate.headerValue(queuedAt: queuedAt, now: clock.now()))
        }
        if endpoint.method != .get, endpoint.sendsFeedPosition, let position = writePosition {
            request.headers.add(name: FeedPosition.headerName, value: position.header)
        }
        return request
    }

    /// One exchange: the answer's head within `resourceTimeout`, then its body with no pause longer than
    /// `requestTimeout`; or a transport error that says what happened.
    private func transfer(_ request: HTTPClientRequest) async throws(NetworkError) -> Received {
        countSentRequest()
        do {
            let response = try await http.execute(request, timeout: .seconds(Int64(configuration.resourceTimeout)))
            let status = Int(response.status.code)
            if (300..<400).contains(status) {
                throw NetworkError.transport(
                    RedirectRefusal.message(status: status, location: response.headers.first(name: "Location")))
            }
            let body = try await response.body.collect(upTo: Self.maximumAnswerBytes)
            return Received(status: status, headers: response.headers, body: Data(body.readableBytesView))
        } catch let error as NetworkError {
            throw error
        } catch {
            if Task.isCancelled || error is CancellationError { throw .cancelled }
            throw .transport(Self.describe(transferError: error))
        }
    }

    /// The largest answer read: far above any page the server writes (its pages end at a byte cap, docs/security.md).
    static let maximumAnswerBytes = 256 * 1024 * 1024

    /// What a failed exchange says, in the words a user acts on.
    static func describe(transferError error: any Error) -> String {
        switch error as? HTTPClientError {
        case .deadlineExceeded?, .readTimeout?, .connectTimeout?, .writeTimeout?: return "the request timed out"
        case .remoteConnectionClosed?: return "the connection closed without an answer"
        default: break
        }
        if error is NIOTooManyBytesError { return "the answer was larger than \(maximumAnswerBytes / 1024 / 1024) MB" }
        if case .connectTimeout? = error as? ChannelError { return "the request timed out" }
        let text = "\(error)"
        if text.contains("Connection refused") || text.contains("connectionRefused") { return "connection refused" }
        if text.contains("Connection reset") { return "the connection was lost before an answer arrived" }
        return text
    }
}

/// A whole answer as it came off the wire.
struct Received {
    let status: Int
    let headers: HTTPHeaders
    let body: Data
}
