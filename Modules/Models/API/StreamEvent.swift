import Foundation

/// One event of the change stream (api-v1 §13), as `NetworkClientProtocol.changeStream(since:)` yields it.
public enum StreamEvent: Sendable, Hashable {
    /// The server accepted the stream: entries follow as they commit.
    case opened
    /// One change entry, in id order, each once.
    case change(ChangeEntry)
    /// The retention watermark passed the stream's position (`reason` is `cursor_expired`): the client bootstraps.
    /// The server closes the stream after it.
    case reset(reason: String)
    /// The token expired: reconnect with a fresh one. The server closes the stream after it.
    case reauth
}
