import Foundation
import Models
import Protocols

extension MockNetworkClient {
    /// N9. Recorded as `changeStream` with `since` (and `since_created_at`); a sticky or queued error fails the stream as it opens; a queued
    /// stream (`enqueueStream`) is played instead of the model; a model that does not announce `stream` answers
    /// 404, as a server without the route. Otherwise the model's live stream of `userId`.
    public func changeStream(from position: FeedPosition) -> AsyncThrowingStream<StreamEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StreamEvent.self)
        let task = Task {
            do {
                let source = try await call(.changeStream, Dictionary(uniqueKeysWithValues: position.query)) {
                    () throws(NetworkError) -> AsyncThrowingStream<StreamEvent, any Error> in
                    guard serverFeatures?.has(ServerFeatures.stream) != false else {
                        throw .http(HTTPFailure(status: 404, problemType: "not_found", message: "route not found"))
                    }
                    return try server.changeStream(user: userId, from: position)
                }
                for try await event in source { continuation.yield(event) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Plays the next stream opened: `events`, then a clean close (`end` nil) or a drop with `end`.
    public func enqueueStream(_ events: [StreamEvent], end: NetworkError? = nil) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StreamEvent.self)
        for event in events { continuation.yield(event) }
        if let end { continuation.finish(throwing: end) } else { continuation.finish() }
        enqueue(stream, for: .changeStream)
    }
}
