import Foundation
import TrendyServer

/// The built `trendy-server` run as a child process (on `ChildProcess`, itself on swift-subprocess).
public final class ServerProcess: Sendable {
    /// The running process: its pid, signals, and everything it wrote.
    public let running: ChildProcess.Running
    /// The URL from the `listening on` line.
    public let url: String

    private init(running: ChildProcess.Running, url: String) {
        self.running = running
        self.url = url
    }

    /// Everything the process wrote on stderr; waits for the process to exit.
    public func errors() async -> String { await running.result().stderr }

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

    /// Starts `trendy-server` with `arguments` (and this process's environment) and waits for its one-line
    /// `listening on` announcement. Tests start many servers at once; only as many start together as there are
    /// cores, so that start-up work does not starve the servers already serving.
    public static func start(_ arguments: [String]) async throws -> ServerProcess {
        try await startGate.holding { try await launch(arguments) }
    }

    private static let startGate = PermitGate(permits: ProcessInfo.processInfo.activeProcessorCount)

    private static func launch(_ arguments: [String]) async throws -> ServerProcess {
        let running = try await ChildProcess.start(
            "trendy-server", arguments, environment: ProcessInfo.processInfo.environment)
        let line = await running.firstLine() ?? ""
        let prefix = "trendy-server listening on "
        guard line.hasPrefix(prefix) else {
            running.send(SIGTERM)
            let result = await running.result()
            throw LaunchError.noListeningLine(stdout: result.stdout, stderr: result.stderr)
        }
        return ServerProcess(running: running, url: String(line.dropFirst(prefix.count)))
    }

    /// Sends SIGTERM and waits for the process to exit; returns its exit status.
    @discardableResult
    public func terminate() async -> Int32 {
        stop()
        return await running.result().status
    }

    /// Sends SIGTERM and returns at once: for `defer`, where nothing can be awaited.
    public func stop() { running.send(SIGTERM) }

    /// `kill -9` and waits for the exit: no shutdown, no flush.
    public func kill() async {
        running.send(SIGKILL)
        _ = await running.result()
    }

    /// Anything printed on stdout after the `listening on` line; waits for the process to exit.
    public func remainingOutput() async -> String {
        let stdout = await running.result().stdout
        guard let newline = stdout.firstIndex(of: "\n") else { return "" }
        return String(stdout[stdout.index(after: newline)...])
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
