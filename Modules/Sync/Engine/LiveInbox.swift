import Foundation
import Models
import Protocols
import Synchronization

/// What wakes the live loop (sync-engine R12), gathered while it is busy: stream events (held while a round runs),
/// the end of the stream, a write by someone else, and a timer. The loop takes everything at once when it wakes.
final class LiveInbox: Sendable {
    struct Contents: Sendable {
        var events: [StreamEvent] = []
        /// The stream ended: cleanly (`nil` error) or with an error.
        var streamEnded = false
        var streamError: (any Error)?
        /// Someone else's write is waiting to be pushed.
        var localWrite = false
        /// A timer the loop set has fired.
        var timerFired = false
        /// Another process moved the stored cursor below the stream's position (a bootstrap): reconnect from it.
        var rewound = false
        var stopped = false
        /// The stream whose events these are; events of an older stream are dropped as they arrive.
        var generation = 0

        var isEmpty: Bool { events.isEmpty && !streamEnded && !localWrite && !timerFired && !rewound && !stopped }
    }

    private let contents = Mutex(Contents())
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    private let timer = Mutex<Task<Void, Never>?>(nil)

    init() {
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// A new stream opens: what an older one sent and has not been taken is dropped, and so is whatever it sends
    /// later. Returns the new stream's generation, for `put` and `streamEnded`.
    func beginStream() -> Int {
        contents.withLock { contents in
            contents.generation += 1
            contents.events = []
            contents.streamEnded = false
            contents.streamError = nil
            return contents.generation
        }
    }

    func put(_ event: StreamEvent, generation: Int) {
        let taken = contents.withLock { contents in
            guard contents.generation == generation else { return false }
            contents.events.append(event)
            return true
        }
        if taken { ring.yield() }
    }

    func streamEnded(_ error: (any Error)?, generation: Int) {
        let taken = contents.withLock { contents in
            guard contents.generation == generation else { return false }
            contents.streamEnded = true
            contents.streamError = error
            return true
        }
        if taken { ring.yield() }
    }

    func localWrite() {
        contents.withLock { $0.localWrite = true }
        ring.yield()
    }

    func rewound() {
        contents.withLock { $0.rewound = true }
        ring.yield()
    }

    func stop() {
        contents.withLock { $0.stopped = true }
        ring.yield()
        timer.withLock { $0?.cancel() }
    }

    /// Rings after `seconds` on `clock`, replacing the timer set before.
    func setTimer(after seconds: TimeInterval, clock: any SyncClock) {
        let task = Task { [weak self] in
            do { try await clock.sleep(for: max(0, seconds)) } catch { return }
            self?.contents.withLock { $0.timerFired = true }
            self?.ring.yield()
        }
        timer.withLock { previous in
            previous?.cancel()
            previous = task
        }
    }

    func cancelTimer() {
        timer.withLock { $0?.cancel() }
    }

    /// Waits until something arrived, then takes it all. A cancelled caller gets `stopped`.
    func next() async -> Contents {
        var iterator = doorbell.makeAsyncIterator()
        while true {
            let taken = contents.withLock { contents -> Contents? in
                guard !contents.isEmpty else { return nil }
                defer { contents = Contents(stopped: contents.stopped, generation: contents.generation) }
                return contents
            }
            if let taken { return taken }
            if await iterator.next() == nil || Task.isCancelled { return Contents(stopped: true, generation: -1) }
        }
    }
}
