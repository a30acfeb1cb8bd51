import Foundation

/// The timings of live mode (sync-engine R12, constants of R14). Tests shorten them; users keep the defaults.
public struct LiveTimings: Sendable, Hashable {
    /// Without the `stream` feature, or after a 404 on the stream, a round every this many seconds.
    public var pollInterval: TimeInterval = 60
    /// The first reconnect waits about this long; each failure doubles it, up to `maxBackoff`. Jittered.
    public var baseBackoff: TimeInterval = 0.5
    /// The longest wait between reconnects.
    public var maxBackoff: TimeInterval = 30

    /// The defaults of sync-engine R14.
    public init() {}
}
