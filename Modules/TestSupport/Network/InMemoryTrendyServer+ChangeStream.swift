import Foundation
import Models
import Protocols
import Synchronization

/// One open stream of the model.
struct ChangeStreamSubscriber: Sendable {
    let user: String
    let continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation
}

/// A fault a test injects into the model's change streams (`InMemoryTrendyServer.scriptStreamFault`).
public enum ScriptedStreamFault: Sendable, Equatable {
    /// The connection drops in the middle of an event.
    case cutMidEvent
    /// The retention watermark passed the stream's position: `reset`, then the stream closes.
    case reset
}

extension InMemoryTrendyServer {
    /// `GET /api/v1/changes/stream` (api-v1 §13): `.opened`, the entries of `user` above `since`, then each entry
    /// as it is logged, until the consumer stops or `closeStreams` ends it. Backlog and registration happen in one
    /// critical section with the log, so no entry is missed or sent twice. A position the history does not hold
    /// is refused before the stream opens, as `/changes` refuses it.
    public func changeStream(
        user: String, from position: FeedPosition
    ) throws(NetworkError)
        -> AsyncThrowingStream<StreamEvent, any Error>
    {
        try checkPosition(position, in: changes(of: user))
        let since = position.cursor
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StreamEvent.self)
        let id = UUID()
        state.withLock { state in
            continuation.yield(.opened)
            for entry in state.changes where entry.userId == user && entry.id > since {
                continuation.yield(.change(entry))
            }
            streams.withLock { $0[id] = ChangeStreamSubscriber(user: user, continuation: continuation) }
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every open stream: cleanly (`error` nil, as a server closing them) or with `error` (a dropped
    /// connection).
    public func closeStreams(throwing error: NetworkError? = nil) {
        let open = streams.withLock { streams in
            defer { streams.removeAll() }
            return Array(streams.values)
        }
        for subscriber in open {
            if let error { subscriber.continuation.finish(throwing: error) } else { subscriber.continuation.finish() }
        }
    }

    /// The next entry logged for a user with open streams meets `fault` on its way to them, as the server's
    /// `TestHooks.scriptedStreamFault` makes it: `cutMidEvent` ends those streams with the transport error a client
    /// reports for a body cut inside an event, without the entry; `reset` sends them `reset` instead, then closes.
    public func scriptStreamFault(_ fault: ScriptedStreamFault) {
        streamFaults.withLock { $0.append(fault) }
    }

    /// Yields `entry` to the open streams of `user`, or makes them meet the next scripted fault. Called in the
    /// critical section that logs the entry; a faulted stream is finished outside `streams`' lock, which its
    /// termination handler takes.
    func deliver(_ entry: ChangeEntry, to user: String) {
        let faulted = streams.withLock { streams -> (ScriptedStreamFault, [ChangeStreamSubscriber])? in
            let receivers = streams.filter { $0.value.user == user }
            guard !receivers.isEmpty else { return nil }
            if let fault = streamFaults.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                for id in receivers.keys { streams.removeValue(forKey: id) }
                return (fault, Array(receivers.values))
            }
            for subscriber in receivers.values { subscriber.continuation.yield(.change(entry)) }
            return nil
        }
        guard let (fault, subscribers) = faulted else { return }
        for subscriber in subscribers {
            switch fault {
            case .cutMidEvent:
                subscriber.continuation.finish(
                    throwing: NetworkError.transport("the stream ended in the middle of an event"))
            case .reset:
                subscriber.continuation.yield(.reset(reason: "cursor_expired"))
                subscriber.continuation.finish()
            }
        }
    }

    /// Open streams, for tests that wait for a subscriber.
    public var openStreamCount: Int { streams.withLock { $0.count } }
}
