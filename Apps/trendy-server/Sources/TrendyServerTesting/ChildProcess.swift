import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a built executable of this package as a user's shell would: arguments, environment, stdin. Waits without
/// blocking a Swift concurrency thread.
public enum ChildProcess {
    public struct Result: Sendable {
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

    /// Starts the executable and returns at once; `stdin` is written and closed.
    public static func start(
        _ name: String, _ arguments: [String], environment: [String: String], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) throws -> Running {
        let process = Process()
        process.executableURL = try ServerProcess.executable(name)
        process.arguments = arguments
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        for pipe in [output, errors, input] { ServerProcess.keepFromOtherChildren(pipe) }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        let running = Running()
        let readers = DispatchGroup()
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            readers.enter()
            Thread.detachNewThread {
                running.collect(pipe.fileHandleForReading.readDataToEndOfFile(), isOutput: isOutput)
                readers.leave()
            }
        }
        process.terminationHandler = { process in
            let status = process.terminationStatus
            Thread.detachNewThread {
                readers.wait()
                running.finish(status: status)
            }
        }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            for pipe in [output, errors, input] {
                try? pipe.fileHandleForWriting.close()
                try? pipe.fileHandleForReading.close()
            }
            throw error
        }
        running.pid = process.processIdentifier
        let writer = input.fileHandleForWriting
        if let stdin { try? writer.write(contentsOf: stdin) }
        try? writer.close()
        return running
    }

    /// A started child process.
    public final class Running: Sendable {
        private struct State {
            var pid: Int32 = 0
            var stdout = Data()
            var stderr = Data()
            var status: Int32?
            var waiters: [CheckedContinuation<Result, Never>] = []
        }

        private let state = Mutex(State())

        fileprivate init() {}

        public fileprivate(set) var pid: Int32 {
            get { state.withLock { $0.pid } }
            set { state.withLock { $0.pid = newValue } }
        }

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

        fileprivate func collect(_ data: Data, isOutput: Bool) {
            state.withLock { state in
                if isOutput { state.stdout = data } else { state.stderr = data }
            }
        }

        fileprivate func finish(status: Int32) {
            let (result, waiters) = state.withLock { state in
                state.status = status
                defer { state.waiters = [] }
                return (Self.result(state, status: status), state.waiters)
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
