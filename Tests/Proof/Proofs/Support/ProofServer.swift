import Foundation
import Models
import Synchronization
import TrendyServer
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

extension FaultConfiguration {
    /// What a convergence run injects while the devices work: 500s, 429s (`Retry-After` 1 s), writes that commit
    /// and lose their answer, and short delays.
    public static let convergenceRun: FaultConfiguration = {
        var plan = FaultConfiguration()
        plan.probability500 = 0.05
        plan.probability429 = 0.04
        plan.probabilityDrop = 0.04
        plan.delayMilliseconds = 15
        plan.probabilityDelay = 0.1
        return plan
    }()

    /// No fault at all.
    public static let none = FaultConfiguration()

    /// The plan as `trendy-server`'s `--fault-*` flags.
    func arguments(seed: UInt64) -> [String] {
        [
            "--fault-500", "\(probability500)", "--fault-429", "\(probability429)", "--fault-retry-after",
            "\(retryAfterSeconds)", "--fault-drop", "\(probabilityDrop)", "--fault-delay-ms", "\(delayMilliseconds)",
            "--fault-delay", "\(probabilityDelay)", "--fault-stream-cut", "\(probabilityStreamCut)", "--fault-seed",
            "\(seed)",
        ] + (failingPathSuffix.map { ["--fault-500-path", $0] } ?? [])
    }

    /// One line for a run's log.
    var summary: String {
        "500: \(probability500), 429: \(probability429) (Retry-After \(retryAfterSeconds) s), drop: \(probabilityDrop), "
            + "delay: \(delayMilliseconds) ms × \(probabilityDelay), stream cuts: \(probabilityStreamCut)"
    }
}

/// Where a proof server keeps its data.
enum ProofStorage: Sendable, Hashable {
    case sqlite(path: String)
    /// A schema of a PostgreSQL database, shared by every instance started on it.
    case postgres(url: String)

    var arguments: [String] {
        switch self {
        case .sqlite(let path): ["--db", path]
        case .postgres(let url): ["--postgres", url]
        }
    }
}

/// `trendy-server` as a child process on one SQLite file or PostgreSQL schema, restartable on the same port with
/// other faults.
final class ProofServer: Sendable {
    let storage: ProofStorage
    let token: String
    let user: String
    let port: Int
    let root: ServerRoot
    private let process: ServerProcess

    private init(storage: ProofStorage, token: String, user: String, process: ServerProcess) throws {
        self.storage = storage
        self.token = token
        self.user = user
        self.process = process
        guard let root = ServerRoot(process.url), let port = root.url.port else {
            throw ProofError("trendy-server announced an unusable address: \(process.url)")
        }
        self.root = root
        self.port = port
    }

    /// The SQLite file, for the harnesses that start their server on one and read it afterwards.
    var database: String {
        guard case .sqlite(let path) = storage else { preconditionFailure("a PostgreSQL server has no SQLite file") }
        return path
    }

    /// Starts a server on a new database, `server.sqlite` in `directory`, for a new user.
    static func start(in directory: URL, faults: FaultConfiguration, seed: UInt64) async throws -> ProofServer {
        try await launch(
            storage: .sqlite(path: directory.appendingPathComponent("server.sqlite").path), port: 0,
            token: "proof-\(seed)", user: UUIDv7.generate(at: Date()), faults: faults, seed: seed)
    }

    /// Starts `count` instances on one PostgreSQL schema, for one new user with the same token on each. Each
    /// instance draws its faults from its own seed.
    static func startInstances(
        _ count: Int, postgres url: String, faults: FaultConfiguration, seed: UInt64
    ) async throws -> [ProofServer] {
        let user = UUIDv7.generate(at: Date())
        var servers: [ProofServer] = []
        for index in 0..<count {
            servers.append(
                try await launch(
                    storage: .postgres(url: url), port: 0, token: "proof-\(seed)", user: user, faults: faults,
                    seed: instanceSeed(seed, index)))
        }
        return servers
    }

    static func instanceSeed(_ seed: UInt64, _ index: Int) -> UInt64 { seed &+ (UInt64(index) << 32) }

    /// Stops this process and starts another on the same storage, port and user with `faults`.
    func restart(faults: FaultConfiguration, seed: UInt64) async throws -> ProofServer {
        await process.terminate()
        return try await Self.launch(
            storage: storage, port: port, token: token, user: user, faults: faults, seed: seed)
    }

    private static func launch(
        storage: ProofStorage, port: Int, token: String, user: String, faults: FaultConfiguration, seed: UInt64
    ) async throws -> ProofServer {
        let process = try await ServerProcess.start(
            ["--port", "\(port)"] + storage.arguments + [
                "--token", "\(token):\(user)", "--jwt-secret-file", try jwtSecretFile(), "--log-level", "critical",
                // Short, so that a request head mutated into blank lines is closed well within the fuzzer's limit.
                "--idle-timeout", "2",
                // The fuzzers send thousands of requests whose tokens fail on purpose: the failure throttle's 429
                // would stand in front of the handlers they mean to reach (the throttle has tests of its own).
                "--auth-failures-per-minute", "1000000",
            ] + faults.arguments(seed: seed))
        return try ProofServer(storage: storage, token: token, user: user, process: process)
    }

    /// The file of `ExpiringTokens.secret`, written once per process (0600): every proof server accepts the live
    /// devices' short-lived JWTs besides the static token.
    private static func jwtSecretFile() throws -> String {
        try secretFile.withLock { path in
            if let path { return path }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "trendy-proof-\(ProcessInfo.processInfo.processIdentifier).jwt")
            guard
                FileManager.default.createFile(
                    atPath: file.path, contents: Data(ExpiringTokens.secret), attributes: [.posixPermissions: 0o600])
            else { throw ProofError("cannot write the JWT secret file \(file.path)") }
            path = file.path
            return file.path
        }
    }
    private static let secretFile = Mutex<String?>(nil)

    /// `trendy-server backup` of the SQLite file while this server serves it (api-v1 §15): the copy is marked, and
    /// starts a new history when a server first serves it.
    func backUp(to output: String) async throws {
        let made = try await ChildProcess.run("trendy-server", ["backup", "--db", database, output], environment: [:])
        guard made.status == 0 else { throw ProofError("trendy-server backup exited \(made.status): \(made.stderr)") }
    }

    /// `trendy-server compact --older-than-days 0` on this server's storage while it serves (api-v1 §6.8): what it
    /// printed.
    func compact() async throws -> String {
        let made = try await ChildProcess.run(
            "trendy-server", ["compact"] + storage.arguments + ["--older-than-days", "0"], environment: [:])
        guard made.status == 0 else { throw ProofError("trendy-server compact exited \(made.status): \(made.stderr)") }
        return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An operator's copy with no command: this server stopped, its file (and any WAL) copied to `output`, and a new
    /// process started on the same storage and port with `faults`. Nothing marks the copy.
    func copiedWhileStopped(to output: String, faults: FaultConfiguration, seed: UInt64) async throws -> ProofServer {
        await process.terminate()
        try Self.copyDatabase(from: database, to: output)
        return try await Self.launch(
            storage: storage, port: port, token: token, user: user, faults: faults, seed: seed)
    }

    /// How a backup goes back in place.
    enum RestoreMethod: String {
        /// `trendy-server restore`.
        case command
        /// The file copied over the database by hand, no command.
        case copy
    }

    /// Stops this process, puts the backup at `backup` in place of the SQLite file, and starts another process on
    /// the same port with `faults`; `whileStopped` runs between the two, when no answer of either history can come.
    func restored(
        from backup: String, by method: RestoreMethod, faults: FaultConfiguration, seed: UInt64,
        whileStopped: () -> Void = {}
    ) async throws -> ProofServer {
        await process.terminate()
        whileStopped()
        switch method {
        case .command:
            let restored = try await ChildProcess.run(
                "trendy-server", ["restore", "--db", database, backup], environment: [:])
            guard restored.status == 0 else {
                throw ProofError("trendy-server restore exited \(restored.status): \(restored.stderr)")
            }
        case .copy:
            try Self.copyDatabase(from: backup, to: database)
        }
        return try await Self.launch(
            storage: storage, port: port, token: token, user: user, faults: faults, seed: seed)
    }

    /// Copies a stopped database: the file and its WAL, if any, replace those at `target`; the target's shared-memory
    /// index goes (SQLite rebuilds it from the WAL).
    private static func copyDatabase(from source: String, to target: String) throws {
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: target + suffix) {
            try files.removeItem(atPath: target + suffix)
        }
        for suffix in ["", "-wal"] where files.fileExists(atPath: source + suffix) {
            try files.copyItem(atPath: source + suffix, toPath: target + suffix)
        }
    }

    /// SIGTERM; the process exits on its own (callers are `defer`s at the end of a run).
    func stop() { process.stop() }

    /// `kill -9`: no shutdown, no flush; what SQLite committed is all that survives.
    func crash() async { await process.kill() }
}

/// A failure of the harness itself (not a divergence): the server would not start, a file could not be made.
public struct ProofError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
