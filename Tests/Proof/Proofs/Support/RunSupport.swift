import Foundation
import Synchronization

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

/// Runs `body`, bounded in time: after `limit` it returns `hung()` instead, cancels the body's task and leaves it
/// behind (a hang is a finding; callers that get the `hung` value should report and exit).
func bounded<Value: Sendable>(
    _ limit: Duration, hung: @escaping @Sendable () -> Value, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let finish = Once<Result<Value, any Error>>()
    let worker = Task { finish.resolve(await Result(catching: body)) }
    let watchdog = Task {
        try await Task.sleep(for: limit)
        finish.resolve(.success(hung()))
        worker.cancel()
    }
    let result = await finish.value
    watchdog.cancel()
    return try result.get()
}

/// How one seeded run ended: enough for a command to count runs, report failures and stop at a hang.
public protocol SeededOutcome: Sendable {
    var seed: UInt64 { get }
    var passed: Bool { get }
    /// The run did not finish in its time limit; its task is still there, so no further run should start.
    var hung: Bool { get }
    /// The seed, the log and what broke.
    var report: String { get }
}

/// A new, empty directory under the system's temporary one, named `name` and a UUID; the caller removes it.
func makeScratchDirectory(_ name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "\(name)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// Removes a convergence run's directory, unless `TRENDY_PROOF_KEEP` is set: then its devices' databases and the
/// server's file stay for a look after a failure (docs/reliability.md, "Reading a failed seed").
func removeRunDirectory(_ directory: URL, log: LogSink) {
    if ProcessInfo.processInfo.environment["TRENDY_PROOF_KEEP"] != nil {
        log.note("kept: \(directory.path)")
        FileHandle.standardError.write(Data("kept: \(directory.path)\n".utf8))
        return
    }
    try? FileManager.default.removeItem(at: directory)
}
