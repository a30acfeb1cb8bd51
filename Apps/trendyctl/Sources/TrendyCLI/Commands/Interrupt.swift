import Synchronization
import UnixSignals

/// Ctrl-C (SIGINT) or SIGTERM cancels the work in progress — the engine ends the round `cancelled` with nothing
/// half-applied — and stops `--watch`. While an `Interrupt` lives, those signals no longer kill the process: they
/// arrive on swift-service-lifecycle's `UnixSignalsSequence`.
final class Interrupt: Sendable {
    private let latch = Latch()
    private let listener: Task<Void, Never>

    init() async {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let latch = latch
        listener = Task {
            for await signal in signals { latch.fire(signal.rawValue) }
        }
    }

    deinit { listener.cancel() }

    var fired: Bool { latch.received != nil }

    /// The shell's convention for a process ended by a signal: 128 + its number (130 for Ctrl-C, 143 for SIGTERM).
    var exitCode: Int32? { latch.received.map { 128 + $0 } }

    /// Runs `body` so that a signal cancels it.
    func run<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) async -> Result {
        let task = Task { await body() }
        if latch.setCancel({ task.cancel() }) { task.cancel() }
        let result = await task.value
        _ = latch.setCancel(nil)
        return result
    }

    /// The first signal received and what cancels the work in progress.
    private final class Latch: Sendable {
        private struct State {
            var cancelCurrent: (@Sendable () -> Void)?
            var signal: Int32?
        }

        private let state = Mutex(State())

        var received: Int32? { state.withLock { $0.signal } }

        func fire(_ number: Int32) {
            let cancel = state.withLock { state -> (@Sendable () -> Void)? in
                if state.signal == nil { state.signal = number }
                return state.cancelCurrent
            }
            cancel?()
        }

        /// Installs what a signal cancels; true if a signal already came (the caller cancels at once).
        func setCancel(_ cancel: (@Sendable () -> Void)?) -> Bool {
            state.withLock { state in
                state.cancelCurrent = cancel
                return state.signal != nil
            }
        }
    }
}
