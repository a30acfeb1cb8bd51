import Foundation
import Models
import Protocols
import Synchronization

/// A `NetworkClientProtocol` double backed by an `InMemoryTrendyServer` (sync-engine §2.9).
///
/// By default every call goes to the in-memory model as `userId`, so creates really appear in the change feed.
/// On top of that, per method: a FIFO queue of `Result`s that answers the next calls instead of the model, sticky
/// errors (global or per method), call counters and a log of every call's arguments and key, and gates that hold
/// calls in flight. Thread-safe through one `Mutex`.
public final class MockNetworkClient: NetworkClientProtocol, Sendable {
    /// Every call the client makes, for counters, scripted answers, sticky errors and gates.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// The seed's calls; those with a fresh key are their keyed counterparts (`NetworkClientProtocol`'s extension).
        case getEventTypes, createEventTypeWithIdempotency, deleteEventType
        /// The seed's event calls: an offset page, every page, a create, a delete.
        case getEvents, getAllEvents, createEventWithIdempotency, deleteEvent
        /// The seed's geofence calls.
        case getGeofences, createGeofenceWithIdempotency, deleteGeofence
        /// The seed's property-definition calls.
        case getPropertyDefinitions, createPropertyDefinitionWithIdempotency, deletePropertyDefinition
        /// The change feed and its head (sync-engine §4.9, §5.2).
        case getChanges, getLatestCursor
        /// N1–N6.
        case createEventsBatchWithIdempotency, entityExists, updateEventTypeWithIdempotency
        /// The other updates of N1–N6, one per entity kind.
        case updateEventWithIdempotency, updateGeofenceWithIdempotency, updatePropertyDefinitionWithIdempotency
        /// N7, N8 (revision 3).
        case fetchEntity, getEventsPage
        /// N10, N11 (the digest, R10).
        case getDigest, getDigestBucket
        /// N9 (the change stream, R12).
        case changeStream
        /// N12 (the give-back, R15).
        case giveBack

        /// The writes that carry the feed position they were made from (N13, api-v1 §6.7): every create, update,
        /// delete and batch; not the give-back.
        public var sendsFeedPosition: Bool {
            switch self {
            case .createEventTypeWithIdempotency, .deleteEventType, .createEventWithIdempotency, .deleteEvent,
                .createGeofenceWithIdempotency, .deleteGeofence, .createPropertyDefinitionWithIdempotency,
                .deletePropertyDefinition, .createEventsBatchWithIdempotency, .updateEventTypeWithIdempotency,
                .updateEventWithIdempotency, .updateGeofenceWithIdempotency, .updatePropertyDefinitionWithIdempotency:
                true
            default: false
            }
        }
    }

    /// One recorded call.
    public struct Call: Sendable, Equatable {
        /// Which call it was.
        public let method: Method
        /// Scalar arguments by name (`id`, `limit`, `since`, …).
        public let arguments: [String: String]
        /// The `Idempotency-Key` it carried; nil for a read.
        public let idempotencyKey: String?
        /// The request body as the client would send it.
        public let body: JSONValue?
    }

    private struct State {
        var queues: [Method: [Result<any Sendable, NetworkError>]] = [:]
        var stickyErrors: [Method: NetworkError] = [:]
        var globalStickyError: NetworkError?
        var calls: [Call] = []
        var gates: [Method: CallGate] = [:]
        var announcedFeatures: ServerFeatures?
        var writePosition: FeedPosition?
    }

    /// The model that answers every call nothing scripted answers.
    public let server: InMemoryTrendyServer
    /// The account every call is made as (lowercased).
    public let userId: String
    private let state = Mutex(State())

    /// A client of `userId` on `server` (a new empty model by default).
    public init(server: InMemoryTrendyServer = InMemoryTrendyServer(), userId: String = MockNetworkClient.defaultUserId)
    {
        self.server = server
        self.userId = userId.lowercased()
    }

    /// The account of a client made without one.
    public static let defaultUserId = "5b3c1d2e-8f4a-4b6c-9d0e-1f2a3b4c5d6e"

    // MARK: Scripting

    /// Answers the next call of `method` with `value` instead of the model.
    public func enqueue(_ value: some Sendable, for method: Method) {
        state.withLock { $0.queues[method, default: []].append(.success(value)) }
    }

    /// Fails the next call of `method` with `error`.
    public func enqueue(_ error: NetworkError, for method: Method) {
        state.withLock { $0.queues[method, default: []].append(.failure(error)) }
    }

    /// Fails every call (nil `method`) or every call of `method` with `error` until cleared with nil.
    public func setStickyError(_ error: NetworkError?, for method: Method? = nil) {
        state.withLock { state in
            if let method { state.stickyErrors[method] = error } else { state.globalStickyError = error }
        }
    }

    /// Holds every call of `method` at a gate until `release()`.
    @discardableResult
    public func hold(_ method: Method) -> CallGate {
        let gate = CallGate()
        state.withLock { $0.gates[method] = gate }
        return gate
    }

    /// Stops holding calls of `method` (calls already held stay held until their gate is released).
    public func stopHolding(_ method: Method) { state.withLock { $0.gates[method] = nil } }

    // MARK: Spying

    /// Every call since the last `resetCalls()`, in order.
    public var calls: [Call] { state.withLock { $0.calls } }
    /// The calls of `method`, in order.
    public func calls(of method: Method) -> [Call] { calls.filter { $0.method == method } }
    /// How many calls of `method` were made.
    public func callCount(_ method: Method) -> Int { calls(of: method).count }
    /// How many calls were made, of any method.
    public var totalCallCount: Int { state.withLock { $0.calls.count } }
    /// Forgets the calls made so far; scripts, sticky errors and gates stay.
    public func resetCalls() { state.withLock { $0.calls = [] } }

    /// `callCount(.getEventTypes)`.
    public var getEventTypesCallCount: Int { callCount(.getEventTypes) }
    /// `callCount(.getChanges)`.
    public var getChangesCallCount: Int { callCount(.getChanges) }
    /// `callCount(.getLatestCursor)`.
    public var getLatestCursorCallCount: Int { callCount(.getLatestCursor) }
    /// `callCount(.createEventsBatchWithIdempotency)`.
    public var createEventsBatchCallCount: Int { callCount(.createEventsBatchWithIdempotency) }

    /// The model's features once any call was answered (sync-engine R0), nil before; `announce(_:)` overrides them.
    public var serverFeatures: ServerFeatures? {
        state.withLock { state in state.calls.isEmpty ? nil : (state.announcedFeatures ?? server.features) }
    }

    /// The model's history once any call was answered (api-v1 §15), nil before.
    public var serverHistory: ServerHistory? {
        state.withLock { state in state.calls.isEmpty ? nil : server.history }
    }

    /// N13: the position later writes are made from; the model refuses them as the server does (api-v1 §6.7).
    public func setWritePosition(_ position: FeedPosition?) { state.withLock { $0.writePosition = position } }

    /// The position set by `setWritePosition(_:)`, which each write's recorded call also carries as
    /// `feed_position`.
    public var writePosition: FeedPosition? { state.withLock { $0.writePosition } }

    /// Plays a server that announces `features` (nil: the model's own), e.g. the original backend's none.
    public func announce(_ features: ServerFeatures?) { state.withLock { $0.announcedFeatures = features } }

    // MARK: Dispatch

    /// Records the call, waits at its gate, then answers from sticky errors, the queue, or the model.
    func call<Response: Sendable>(
        _ method: Method, _ arguments: [String: String] = [:], key: String? = nil,
        body: (some Encodable)? = String?.none,
        backend: () throws(NetworkError) -> Response
    ) async throws(NetworkError) -> Response {
        let json = body.flatMap { try? JSONCoding.encode($0) }.flatMap { try? JSONText.parse(Array($0)) }
        let (gate, position) = state.withLock { state -> (CallGate?, FeedPosition?) in
            let position = method.sendsFeedPosition ? state.writePosition : nil
            var arguments = arguments
            if let position { arguments["feed_position"] = position.header }
            state.calls.append(Call(method: method, arguments: arguments, idempotencyKey: key, body: json))
            return (state.gates[method], position)
        }
        if let gate, await !gate.pass() { throw .cancelled }
        if Task.isCancelled { throw .cancelled }
        let scripted = state.withLock { state -> Result<any Sendable, NetworkError>? in
            if let error = state.globalStickyError ?? state.stickyErrors[method] { return .failure(error) }
            guard var queue = state.queues[method], !queue.isEmpty else { return nil }
            let next = queue.removeFirst()
            state.queues[method] = queue
            return next
        }
        switch scripted {
        case .failure(let error):
            throw error
        case .success(let value):
            guard let response = value as? Response else {
                preconditionFailure("queued a \(type(of: value)) for \(method), which returns \(Response.self)")
            }
            return response
        case nil:
            if let position { try server.checkWritePosition(position, user: userId) }
            return try backend()
        }
    }
}

extension MockNetworkClient.Method {
    /// The method a generic create of `kind` is recorded, scripted and held as.
    static func create(_ kind: MutationEntityType) -> Self {
        kind.pick(
            .createEventWithIdempotency, .createEventTypeWithIdempotency, .createGeofenceWithIdempotency,
            .createPropertyDefinitionWithIdempotency)
    }

    /// The method a generic update of `kind` is recorded, scripted and held as.
    static func update(_ kind: MutationEntityType) -> Self {
        kind.pick(
            .updateEventWithIdempotency, .updateEventTypeWithIdempotency, .updateGeofenceWithIdempotency,
            .updatePropertyDefinitionWithIdempotency)
    }

    /// The method a delete of `kind` is recorded, scripted and held as.
    static func delete(_ kind: MutationEntityType) -> Self {
        kind.pick(.deleteEvent, .deleteEventType, .deleteGeofence, .deletePropertyDefinition)
    }
}
