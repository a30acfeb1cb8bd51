import Foundation

/// The timings of live mode (sync-engine R12, constants of R14). Tests shorten them; users keep the defaults.
public struct LiveTimings: Sendable, Hashable {
    /// A local write is pushed at once, unless a live round started less than this long ago: then once this much
    /// has passed since it started; writes made while a round runs go in the next one (R12 `liveDebounce`).
    public var debounce: TimeInterval = 0.02
    /// Without the `stream` feature, or after a 404 on the stream, a round every this many seconds.
    public var pollInterval: TimeInterval = 60
    /// The first reconnect waits about this long; each failure doubles it, up to `maxBackoff`. Jittered.
    public var baseBackoff: TimeInterval = 0.5
    public var maxBackoff: TimeInterval = 30

    public init() {}
}
