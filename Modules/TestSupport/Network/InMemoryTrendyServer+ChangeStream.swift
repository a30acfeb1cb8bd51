import Foundation
import Models
import Protocols
import Synchronization

/// One open stream of the model.
struct ChangeStreamSubscriber: Sendable {
    let user: String
    let continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation
}

extension InMemoryTrendyServer {
    /// `GET /api/v1/changes/stream` (api-v1 §13): `.opened`, the entries of `user` above `since`, then each entry
    /// as it is logged, until the consumer stops or `closeStreams` ends it. Backlog and registration happen in one
    /// critical section with the log, so no entry is missed or sent twice.
    public func changeStream(user: String, since: Int64) -> AsyncThrowingStream<StreamEvent, any Error> {
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

    /// Open streams, for tests that wait for a subscriber.
    public var openStreamCount: Int { streams.withLock { $0.count } }
}
