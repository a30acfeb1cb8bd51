import Foundation
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// Runs a built executable of this package as a user's shell would: arguments, environment, stdin. Spawning,
/// pipes and reaping are swift-subprocess's (asynchronous I/O: no thread blocks while a child runs).
public enum ChildProcess {
    public struct Result: Sendable {
        /// The exit code, or the signal's number when a signal ended the process (as Foundation's `Process`).
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs the executable to completion.
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) async throws -> Result {
        try await start(name, arguments, environment: environment, stdin: stdin, currentDirectory: currentDirectory)
            .result()
    }

    /// Starts the built executable `name` and returns once it runs; `stdin` is written and closed. The environment
    /// is exactly `environment` (nothing inherited).
    public static func start(
        _ name: String, _ arguments: [String], environment: [String: String], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) async throws -> Running {
        try await start(
            executable: ServerProcess.executable(name), arguments, environment: environment, stdin: stdin,
            currentDirectory: currentDirectory)
    }

    /// Runs the executable at `executable` (any program, e.g. `/usr/bin/env`) to completion.
    public static func run(
        executable: URL, _ arguments: [String], environment: [String: String], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) async throws -> Result {
        try await start(
            executable: executable, arguments, environment: environment, stdin: stdin,
            currentDirectory: currentDirectory
        ).result()
    }

    /// Starts the executable at `executable`; as `start(_:_:environment:stdin:currentDirectory:)`.
    public static func start(
        executable: URL, _ arguments: [String], environment: [String: String], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) async throws -> Running {
        let running = Running()
        let variables = Dictionary(
            environment.compactMap { name, value in Environment.Key(rawValue: name).map { ($0, value) } },
            uniquingKeysWith: { first, _ in first })
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            // Unstructured: the child outlives this call, and `Running` is how callers reach it.
            Task {
                do {
                    let outcome = try await Subprocess.run(
                        .path(FilePath(executable.path)), arguments: Arguments(arguments),
                        environment: .custom(variables),
                        workingDirectory: currentDirectory.map { FilePath($0.path) },
                        input: .array(Array(stdin ?? Data())), output: .sequence, error: .sequence
                    ) { execution in
                        running.started(pid: execution.processIdentifier.value)
                        started.resume()
                        // Both pipes at once: a child blocked on a full stderr never closes stdout.
                        async let errors: Void = running.drain(execution.standardError, isOutput: false)
                        try await running.drain(execution.standardOutput, isOutput: true)
                        try await errors
                    }
                    running.finish(status: outcome.terminationStatus)
                } catch {
                    if running.pid == 0 { started.resume(throwing: error) } else { running.finish(status: nil) }
                }
            }
        }
        return running
    }

    /// A started child process.
    public final class Running: Sendable {
        private struct State {
            var pid: Int32 = 0
            var stdout: [UInt8] = []
            var stderr: [UInt8] = []
            var stdoutClosed = false
            var status: Int32?
            var waiters: [CheckedContinuation<Result, Never>] = []
            var lineWaiters: [CheckedContinuation<String?, Never>] = []

            /// The first line of stdout once it is complete, `.some(nil)` when stdout closed without one.
            var firstLine: String?? {
                if let newline = stdout.firstIndex(of: UInt8(ascii: "\n")) {
                    return .some(String(decoding: stdout[..<newline], as: UTF8.self))
                }
                return stdoutClosed ? .some(nil) : nil
            }
        }

        private let state = Mutex(State())

        fileprivate init() {}

        public var pid: Int32 { state.withLock { $0.pid } }

        /// What the process has written on stdout so far. Does not wait.
        public var stdoutSoFar: String { state.withLock { String(decoding: $0.stdout, as: UTF8.self) } }

        /// What the process has written on stderr so far. Does not wait.
        public var stderrSoFar: String { state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

        /// The exit status once the process has exited (and its output was read), else nil. Does not wait.
        public var exitStatus: Int32? { state.withLock { $0.status } }

        /// Sends `signal` (e.g. `SIGINT`, as Ctrl-C does) to the process, unless it has exited.
        public func send(_ signal: Int32) {
            state.withLock { state in
                if state.status == nil && state.pid > 0 { _ = kill(state.pid, signal) }
            }
        }

        /// Waits for the process to exit and returns its status and everything it wrote.
        public func result() async -> Result {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Result? in
                    guard let status = state.status else {
                        state.waiters.append(continuation)
                        return nil
                    }
                    return Self.result(state, status: status)
                }
                if let done { continuation.resume(returning: done) }
            }
        }

        /// The first line the process writes on stdout (without its newline); nil when it closes stdout first.
        public func firstLine() async -> String? {
            await withCheckedContinuation { continuation in
                let line = state.withLock { state -> String?? in
                    if let line = state.firstLine { return line }
                    state.lineWaiters.append(continuation)
                    return nil
                }
                if let line { continuation.resume(returning: line) }
            }
        }

        fileprivate func started(pid: Int32) {
            state.withLock { $0.pid = pid }
        }

        fileprivate func drain(_ sequence: SubprocessOutputSequence, isOutput: Bool) async throws {
            defer { if isOutput { append([], isOutput: true, closed: true) } }
            for try await buffer in sequence {
                append(buffer.withUnsafeBytes { Array($0) }, isOutput: isOutput, closed: false)
            }
        }

        private func append(_ bytes: [UInt8], isOutput: Bool, closed: Bool) {
            let (line, waiters) = state.withLock { state -> (String??, [CheckedContinuation<String?, Never>]) in
                if isOutput { state.stdout += bytes } else { state.stderr += bytes }
                if closed { state.stdoutClosed = true }
                guard let line = state.firstLine, !state.lineWaiters.isEmpty else { return (nil, []) }
                defer { state.lineWaiters = [] }
                return (line, state.lineWaiters)
            }
            if let line { for waiter in waiters { waiter.resume(returning: line) } }
        }

        /// `status` nil: the output could not be read to its end (the process is gone all the same).
        fileprivate func finish(status: TerminationStatus?) {
            let code: Int32 =
                switch status {
                case .exited(let code): code
                case .signaled(let signal): signal
                case nil: -1
                }
            append([], isOutput: true, closed: true)
            let (result, waiters) = state.withLock { state in
                state.status = code
                defer { state.waiters = [] }
                return (Self.result(state, status: code), state.waiters)
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }

        private static func result(_ state: State, status: Int32) -> Result {
            Result(
                status: status, stdout: String(decoding: state.stdout, as: UTF8.self),
                stderr: String(decoding: state.stderr, as: UTF8.self))
        }
    }
}
