import Foundation

/// Runs blocking work (a socket read, a CPU-bound loop) on a thread of its own, off Swift's cooperative pool: on two
/// cores that pool has two threads, and blocking one starves every in-process server of the test run beside it.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result(catching: body)) }
    }
}
