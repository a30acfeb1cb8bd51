import Foundation
import Models
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The faults a run injects while clients work (`trendy-server --fault-*`).
public struct FaultPlan: Sendable, Hashable, CustomStringConvertible {
    public var probability500 = 0.05
    public var probability429 = 0.04
    /// Writes that commit and lose their answer.
    public var probabilityDrop = 0.04
    public var delayMilliseconds = 15
    public var probabilityDelay = 0.1

    public init() {}

    public static let none: FaultPlan = {
        var plan = FaultPlan()
        plan.probability500 = 0
        plan.probability429 = 0
        plan.probabilityDrop = 0
        plan.delayMilliseconds = 0
        plan.probabilityDelay = 0
        return plan
    }()

    func arguments(seed: UInt64) -> [String] {
        [
            "--fault-500", "\(probability500)", "--fault-429", "\(probability429)", "--fault-retry-after", "1",
            "--fault-drop", "\(probabilityDrop)", "--fault-delay-ms", "\(delayMilliseconds)", "--fault-delay",
            "\(probabilityDelay)", "--fault-seed", "\(seed)",
        ]
    }

    public var description: String {
        "500: \(probability500), 429: \(probability429) (Retry-After 1 s), drop: \(probabilityDrop), "
            + "delay: \(delayMilliseconds) ms × \(probabilityDelay)"
    }
}

/// `trendy-server` as a child process on one SQLite file, restartable on the same port with other faults.
final class ProofServer: Sendable {
    let database: String
    let token: String
    let user: String
    let port: Int
    let root: ServerRoot
    private let process: ServerProcess

    private init(database: String, token: String, user: String, process: ServerProcess) throws {
        self.database = database
        self.token = token
        self.user = user
        self.process = process
        guard let root = ServerRoot(process.url), let port = root.url.port else {
            throw ProofError("trendy-server announced an unusable address: \(process.url)")
        }
        self.root = root
        self.port = port
    }

    /// Starts a server on a new database, `server.sqlite` in `directory`, for a new user.
    static func start(in directory: URL, faults: FaultPlan, seed: UInt64) async throws -> ProofServer {
        try await launch(
            database: directory.appendingPathComponent("server.sqlite").path, port: 0, token: "proof-\(seed)",
            user: UUIDv7.generate(at: Date()), faults: faults, seed: seed)
    }

    /// Stops this process and starts another on the same file, port and user with `faults`.
    func restart(faults: FaultPlan, seed: UInt64) async throws -> ProofServer {
        await process.terminate()
        return try await Self.launch(
            database: database, port: port, token: token, user: user, faults: faults, seed: seed)
    }

    private static func launch(
        database: String, port: Int, token: String, user: String, faults: FaultPlan, seed: UInt64
    ) async throws -> ProofServer {
        let process = try await ServerProcess.start(
            [
                "--port", "\(port)", "--db", database, "--token", "\(token):\(user)", "--log-level", "critical",
                // Short, so that a request head mutated into blank lines is closed well within the fuzzer's limit.
                "--idle-timeout", "2",
            ] + faults.arguments(seed: seed))
        return try ProofServer(database: database, token: token, user: user, process: process)
    }

    /// SIGTERM; the process exits on its own (callers are `defer`s at the end of a run).
    func stop() { process.stop() }

    /// `kill -9`: no shutdown, no flush; what SQLite committed is all that survives.
    func crash() {
        if process.process.isRunning { kill(process.process.processIdentifier, SIGKILL) }
        process.process.waitUntilExit()
    }
}

/// A failure of the harness itself (not a divergence): the server would not start, a file could not be made.
public struct ProofError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
