import Foundation

/// Runs a built executable of this package to completion, as a user's shell would: arguments, environment, stdin.
/// Waits without blocking a Swift concurrency thread.
public enum ChildProcess {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) async throws -> Result {
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
        let collected = Collected()
        let finished = DispatchGroup()
        for (pipe, keyPath) in [(output, \Collected.stdout), (errors, \Collected.stderr)] {
            finished.enter()
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(keyPath, data)
                finished.leave()
            }
        }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in
                Thread.detachNewThread {
                    finished.wait()
                    continuation.resume(returning: process.terminationStatus)
                }
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let writer = input.fileHandleForWriting
            if let stdin { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        return Result(
            status: status, stdout: String(decoding: collected.stdout, as: UTF8.self),
            stderr: String(decoding: collected.stderr, as: UTF8.self))
    }

    /// What the reader threads collected.
    private final class Collected: @unchecked Sendable {
        // @unchecked Sendable: each field is written once by its reader thread under `lock`, and read after the
        // DispatchGroup says both readers are done.
        private let lock = NSLock()
        var stdout = Data()
        var stderr = Data()

        func set(_ field: ReferenceWritableKeyPath<Collected, Data>, _ data: Data) {
            lock.withLock { self[keyPath: field] = data }
        }
    }
}
