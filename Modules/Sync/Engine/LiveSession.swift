import Foundation
import Models

/// Live mode inside the engine (sync-engine R12): its loop, where it stands, what wakes it, and who watches it.
struct LiveSession {
    var task: Task<Void, Never>?
    var state: LiveState = .off
    var inbox: LiveInbox?
    /// The live queue (each mutation's revision by id) as the last live round found it when it started: a commit
    /// that adds anything else is another writer's, and wakes the loop (R12).
    var handled: [String: Int] = [:]
    /// The stored cursor as live mode last left it (opening the stream, applying a burst, a round): a stored cursor
    /// below it was moved back by another process's bootstrap, and the stream reconnects from there.
    var cursor: Int64?
    /// The change stream said `opened` and has not ended: rounds skip the health check (R12).
    var streamOpen = false
    var watchers: [UUID: AsyncStream<LiveActivity>.Continuation] = [:]
}
