import Foundation
import Synchronization

/// Runs one seed, bounded in time.
public enum ConvergenceProof {
    /// Runs the seed; a run that has not finished after `timeLimit` is reported as a failure with the operations
    /// logged so far (a hang is a finding too), and its task is left behind: callers that see `hung` should exit.
    public static func run(_ settings: ProofSettings, timeLimit: Duration = .seconds(300)) async throws -> ProofOutcome
    {
        let log = LogSink()
        let finish = Once<Result<ProofOutcome, any Error>>()
        let worker = Task {
            let result = await Result(catching: { try await ConvergenceRun(settings: settings, log: log).run() })
            finish.resolve(result)
        }
        let watchdog = Task {
            try await Task.sleep(for: timeLimit)
            finish.resolve(
                .success(
                    ProofOutcome(
                        seed: settings.seed, divergence: "hung: no outcome after \(timeLimit)", log: log.lines,
                        deadLetters: 0, serverEntities: 0, hung: true)))
        }
        let result = await finish.value
        watchdog.cancel()
        if case .success(let outcome) = result, outcome.hung { worker.cancel() }
        return try result.get()
    }
}

/// The operation log as it grows, readable from another task (for the report of a hung run).
final class LogSink: Sendable {
    private let storage = Mutex<[String]>([])

    func note(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

/// A value set once by whichever task gets there first, awaited by another.
final class Once<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    func resolve(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
