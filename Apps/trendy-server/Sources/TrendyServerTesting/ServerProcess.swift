import Foundation

/// The built `trendy-server` (or any built executable of this package) run as a child process.
public final class ServerProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only touched by `start` before the instance is shared, and by
    // `terminate`/`waitForExit`, which Foundation's `Process` makes safe to call from any thread; `standardError`
    // is written once by its reader and read only after `finished` signalled.
    public let process: Process
    /// The URL from the `listening on` line.
    public let url: String
    private let output: Pipe
    private var standardError = Data()
    private let finished = DispatchSemaphore(value: 0)

    private init(process: Process, url: String, output: Pipe, errorOutput: Pipe) {
        self.process = process
        self.url = url
        self.output = output
        // Drain stderr as it comes: a server that logs more than a pipe holds (64 KiB) would otherwise block. A
        // thread of its own: a blocked read on a GCD worker would starve the queues URLSession runs on.
        Thread.detachNewThread { [self] in
            standardError = errorOutput.fileHandleForReading.readDataToEndOfFile()
            finished.signal()
        }
    }

    /// Everything the process wrote on stderr; waits for the process to exit.
    public var errors: String {
        process.waitUntilExit()
        finished.wait()
        finished.signal()
        return String(decoding: standardError, as: UTF8.self)
    }

    /// The directory of this package's built products: `$TRENDY_BIN_DIR`, else next to the test bundle.
    public static var productsDirectory: URL {
        if let override = ProcessInfo.processInfo.environment["TRENDY_BIN_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let bundle = Bundle.main.bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }

    public static func executable(_ name: String) throws -> URL {
        let url = productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw LaunchError.notBuilt(url.path) }
        return url
    }

    /// Starts `trendy-server` with `arguments` and waits for its one-line `listening on` announcement. Tests start
    /// many servers at once, so the wait happens on a thread of its own (a blocked cooperative pool, two threads
    /// on two cores, starves every in-process server of the run), and only as many start together as there are
    /// cores.
    public static func start(_ arguments: [String]) async throws -> ServerProcess {
        try await startGate.holding { try await onOwnThread { try launch(arguments) } }
    }

    private static let startGate = StartGate(permits: ProcessInfo.processInfo.activeProcessorCount)

    private static func launch(_ arguments: [String]) throws -> ServerProcess {
        let process = Process()
        process.executableURL = try executable("trendy-server")
        process.arguments = arguments
        let output = Pipe()
        let errorOutput = Pipe()
        for pipe in [output, errorOutput] { Self.keepFromOtherChildren(pipe) }
        process.standardOutput = output
        process.standardError = errorOutput
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = "trendy-server listening on "
        guard text.hasPrefix(prefix) else {
            process.terminate()
            process.waitUntilExit()
            let errors = String(decoding: errorOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw LaunchError.noListeningLine(stdout: text, stderr: errors)
        }
        return ServerProcess(
            process: process, url: String(text.dropFirst(prefix.count)), output: output, errorOutput: errorOutput)
    }

    /// Marks both ends close-on-exec in this process. Tests start servers concurrently, and a child started by another
    /// test would otherwise inherit this pipe's write end and hold back its end-of-file until that child exits. The
    /// server still gets the pipe: spawning duplicates it onto its stdout or stderr, which clears the flag.
    static func keepFromOtherChildren(_ pipe: Pipe) {
        for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        }
    }

    /// Sends SIGTERM and waits for the process to exit, on a thread of its own (a graceful shutdown can take a
    /// while under load, and a blocked cooperative pool stalls every in-process server); returns its exit status.
    @discardableResult
    public func terminate() async -> Int32 {
        stop()
        let process = process
        return
            (try? await onOwnThread {
                process.waitUntilExit()
                return process.terminationStatus
            }) ?? -1
    }

    /// Sends SIGTERM and returns at once: for `defer`, where nothing can be awaited.
    public func stop() {
        if process.isRunning { process.terminate() }
    }

    /// Anything printed on stdout after the `listening on` line (read after exit).
    public var remainingOutput: String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    public enum LaunchError: Error, CustomStringConvertible {
        case notBuilt(String)
        case noListeningLine(stdout: String, stderr: String)

        public var description: String {
            switch self {
            case .notBuilt(let path): "\(path) is not built; run `swift build` (make test does) first"
            case .noListeningLine(let stdout, let stderr): "no listening line; stdout: \(stdout); stderr: \(stderr)"
            }
        }
    }
}
