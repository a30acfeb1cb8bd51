import Foundation
import HTTPTypes
import Models
import NIOCore
import NIOHTTPTypes

/// Sits on every connection, after HTTP parsing (docs/security.md), and keeps slow or hostile clients from holding
/// the server:
/// - admission: the connection caps of `ConnectionLimits`; a connection over them gets one answer (`/health` and
///   `/metrics` served, anything else 503) and is closed;
/// - a deadline for each request head: from the connection's start, or the end of the previous answer, a whole head
///   must arrive within `headTimeout` (a head trickled a byte at a time resets no timer here);
/// - a deadline for each request body: from its head to its last byte, `bodyTimeout`; beyond it 408 and the
///   connection is closed;
/// - `Connection: close`: an answer to a request that asked for it, or that another step marked so (a refusal
///   that leaves a body unread), says so and the connection closes after it.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let headTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private var admission: ConnectionLimits.Admission?
    private var headDeadline: Scheduled<Void>?
    private var bodyDeadline: Scheduled<Void>?
    /// Requests whose answers have not ended (more than one when a client pipelines).
    private var outstanding = 0
    private var answering: Bool { outstanding > 0 }
    /// The answer's head went out (a 408 can no longer be sent).
    private var answerStarted = false
    private var closeAfterAnswer = false
    /// Over capacity and refused: the rest of the request is dropped.
    private var refusing = false

    init(limits: ConnectionLimits, headTimeout: TimeAmount, bodyTimeout: TimeAmount) {
        self.limits = limits
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        admission = limits.opened(ObjectIdentifier(context.channel))
        startHeadDeadline(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        bodyDeadline?.cancel()
        if admission != nil { limits.closed(ObjectIdentifier(context.channel)) }
        admission = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let request):
            headDeadline?.cancel()
            headDeadline = nil
            outstanding += 1
            answerStarted = false
            if admission == .overCapacity {
                closeAfterAnswer = true
                guard request.method == .get, ["/health", "/metrics"].contains(request.path ?? "") else {
                    refusing = true
                    refuse(context, APIError(.unavailable, "the server holds too many connections", retryAfter: 1))
                    return
                }
            }
            if request.headerFields[.connection]?.lowercased() == "close" { closeAfterAnswer = true }
            if Self.hasBody(request) {
                bodyDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: bodyTimeout) { [weak self] in
                    self?.bodyTooSlow(context)
                }
            }
        case .body:
            if refusing { return }
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
            if refusing { return }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where !(100..<200).contains(response.status.code):
            answerStarted = true
            if response.headerFields[.connection]?.lowercased() == "close" { closeAfterAnswer = true }
            if closeAfterAnswer {
                response.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
        case .end:
            outstanding = max(0, outstanding - 1)
            if closeAfterAnswer {
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                written.futureResult.cascade(to: promise)
                context.write(data, promise: written)
                return
            }
            if !answering { startHeadDeadline(context) }
        default:
            break
        }
        context.write(data, promise: promise)
    }

    /// A request carries a body when it declares a length above 0 or a transfer coding.
    static func hasBody(_ request: HTTPRequest) -> Bool {
        if request.headerFields[.transferEncoding] != nil { return true }
        return request.headerFields[.contentLength].flatMap(Int.init).map { $0 > 0 } ?? false
    }

    private func startHeadDeadline(_ context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) { [weak self] in
            guard let self, !self.answering else { return }
            // Nothing can be answered to half a head: the connection just closes.
            context.close(promise: nil)
        }
    }

    private func bodyTooSlow(_ context: ChannelHandlerContext) {
        bodyDeadline = nil
        guard answering else { return }
        if answerStarted {
            context.close(promise: nil)
            return
        }
        // The handler waits for the rest of the body and will find the connection gone; its own answer is lost.
        refusing = true
        closeAfterAnswer = true
        refuse(context, APIError(.requestTimeout, "the request body did not arrive within the time allowed"))
    }

    /// Answers `error` as a problem body with `Connection: close`, then closes.
    private func refuse(_ context: ChannelHandlerContext, _ error: APIError) {
        let requestId = UUID().uuidString.lowercased()
        let body = (try? JSONCoding.encode(error.problemBody(requestId: requestId))) ?? Data()
        var fields = HTTPFields()
        fields[.contentType] = "application/problem+json"
        fields[.contentLength] = "\(body.count)"
        fields[.connection] = "close"
        fields[.requestID] = requestId
        if let retryAfter = error.retryAfter { fields[.retryAfter] = "\(retryAfter)" }
        answerStarted = true
        context.write(wrapOutboundOut(.head(HTTPResponse(status: error.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
