import Synchronization

/// Awaits a task's end for at most a bound, then gives up on it.
///
/// The PostgreSQL test phase has hung now and then with every task waiting on something in memory
/// (docs/history/reliability.md, "The PostgreSQL suites hung"); a server that does not finish stopping is one
/// candidate. A stop bounded this way lets the test go on and says on standard error which wait was abandoned, so the
/// next hang names its cause instead of stalling the run.
public enum BoundedWait {
    /// Whether `task` ended within `limit`. `sleep` is injected so tests decide when the bound passes.
    public static func ended<Success: Sendable, Failure: Error>(
        _ task: Task<Success, Failure>, within limit: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Mutex<CheckedContinuation<Bool, Never>?>(continuation)
            let resume: @Sendable (Bool) -> Void = { ended in once.withLock { $0.take() }?.resume(returning: ended) }
            let bound = Task {
                do { try await sleep(limit) } catch { return }  // cancelled: the task ended first
                resume(false)
            }
            Task {
                _ = await task.result
                bound.cancel()
                resume(true)
            }
        }
    }
}
