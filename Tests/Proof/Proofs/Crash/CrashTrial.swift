import Foundation
import Models
import Networking
import Protocols
import Sync
import TestSupport
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// What one crash trial is run with.
public struct CrashSettings: Sendable {
    public var seed: UInt64
    /// Events written on the first device, pushed, then pulled by the second.
    public var events = 5000
    /// `kill -9`s per phase (push, then pull), each at a random point of the transfer.
    public var killsPerPhase = 1...3
    /// The chance that a kill hits `trendy-server` instead of `trendyctl sync`.
    public var serverKillChance = 0.3

    public init(seed: UInt64) { self.seed = seed }
}

/// How one crash trial ended.
public struct CrashOutcome: SeededOutcome {
    public let seed: UInt64
    /// The first broken guarantee, or nil.
    public let failure: String?
    /// What was killed, when, and every sync's exit status.
    public let log: [String]
    /// Kills that landed while the transfer was under way (neither before it started nor after it ended).
    public let midTransferKills: Int
    public let kills: Int
    public var hung = false

    public var passed: Bool { failure == nil }

    public var report: String {
        (["crash seed \(seed): \(failure ?? "passed")", "steps:"] + log.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// One trial of docs/reliability.md's crash test: device A writes `events` events and syncs them to a
/// `trendy-server` process; `trendyctl sync` (or the server) is killed with SIGKILL when the server holds a random
/// number of them; then a clean sync must leave A and the server equal, nothing lost, nothing duplicated. Device B
/// then pulls everything, killed the same way at a random count of local rows, and must end equal to the server.
/// Every SQLite file must pass `PRAGMA integrity_check` after each phase.
final class CrashTrial {
    let settings: CrashSettings
    var random: SeededRandom
    let log: LogSink
    var kills = 0
    var midTransferKills = 0

    init(settings: CrashSettings, log: LogSink) {
        self.settings = settings
        self.log = log
        random = SeededRandom(seed: settings.seed)
    }

    func run() async throws -> CrashOutcome {
        let directory = try makeScratchDirectory("trendy-crash-\(settings.seed)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var server = try await ProofServer.start(in: directory, faults: .none, seed: settings.seed)
        defer { server.stop() }

        let written = try await seed(directory: directory, server: server)
        log.note("A: \(written.events.count) events of one type written locally")
        let deviceA = CrashDevice(name: "A", directory: directory, server: server)
        let serverRows = SQLiteFile(server.database)
        if let failure = try await phase(
            "push", device: deviceA, server: &server, trigger: .rows,
            progress: { try serverRows.count("SELECT count(*) FROM events") })
        {
            return outcome(failure)
        }
        if let failure = try await verify(deviceA, server: server, expected: written) { return outcome(failure) }

        // An uninterrupted pull first: its duration is the window the kills of B's pulls land in.
        let reference = CrashDevice(name: "C", directory: directory, server: server)
        let started = ContinuousClock.now
        let referenceStatus = try await finish(try reference.startSync(), "pull reference")
        let window = ContinuousClock.now - started
        guard referenceStatus == 0 else { return outcome("an uninterrupted pull exited \(referenceStatus)") }
        log.note("C: an uninterrupted pull took \(window.formatted(.units(allowed: [.milliseconds])))")
        if let failure = try await verify(reference, server: server, expected: written) { return outcome(failure) }

        let deviceB = CrashDevice(name: "B", directory: directory, server: server)
        let localRows = SQLiteFile(deviceB.databasePath)
        if let failure = try await phase(
            "pull", device: deviceB, server: &server, trigger: .time(window: window),
            progress: { try localRows.count("SELECT count(*) FROM event") })
        {
            return outcome(failure)
        }
        if let failure = try await verify(deviceB, server: server, expected: written) { return outcome(failure) }
        return outcome(nil)
    }

    private func outcome(_ failure: String?) -> CrashOutcome {
        CrashOutcome(
            seed: settings.seed, failure: failure, log: log.lines, midTransferKills: midTransferKills, kills: kills)
    }

    /// Writes one event type and `events` events on device A through `EventStore`, in one import; returns them.
    private func seed(directory: URL, server: ProofServer) async throws -> Entities {
        let clock = ManualClock(now: Date().addingTimeInterval(-3600), mode: .advancing)
        let device = try ProofClient(name: "A", directory: directory, server: server, clock: clock)
        let start = clock.now()
        let type = EventType(
            id: UUIDv7.generate(at: start), name: "Crash", color: "#336699", icon: "bolt", createdAt: start)
        let events = (0..<settings.events).map { index in
            let at = start.addingTimeInterval(Double(index) / 1000)
            var event = Event(id: UUIDv7.generate(at: at), eventTypeId: type.id, timestamp: at)
            event.notes = "crash trial \(settings.seed) event \(index)"
            return event
        }
        _ = try await device.events.importEntities(ImportBatch(eventTypes: [type], events: events), dryRun: false)
        return try device.entities()
    }

    /// When a kill lands: when `progress()` (rows moved so far, of `events`) reaches a random target (push: the
    /// server commits batch by batch), or at a random moment of `window` (pull: a device stores a bootstrap at
    /// once, so its rows cannot tell where it is); then up to 30 ms later either way.
    enum Trigger {
        case rows
        case time(window: Duration)
    }

    /// Runs `trendyctl sync` on `device` with 1…3 kills, each of the sync or of the server, then syncs cleanly until
    /// it exits 0. Returns a failure, or nil.
    private func phase(
        _ name: String, device: CrashDevice, server: inout ProofServer, trigger: Trigger, progress: () throws -> Int
    ) async throws -> String? {
        let total = settings.events
        let killCount = Int.random(in: settings.killsPerPhase, using: &random)
        for attempt in 1...killCount {
            let jitter = Duration.milliseconds(Int.random(in: 0...30, using: &random))
            let hitsServer = random.chance(settings.serverKillChance)
            let running = try await device.startSync()
            switch trigger {
            case .rows:
                // Below 90 %: a kill aimed at the last batch would often arrive after the sync ended.
                let target = Int.random(in: 0..<(total * 9 / 10), using: &random)
                while running.exitStatus == nil, try progress() < target {
                    try await Task.sleep(for: .milliseconds(5))
                }
            case .time(let window):
                let milliseconds = Int(window / .milliseconds(1))
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...milliseconds, using: &random)))
            }
            try await Task.sleep(for: jitter)
            guard running.exitStatus == nil else {
                log.note("\(name) \(attempt): sync ended (exit \(await running.result().status)) before its kill")
                continue
            }
            let before = try progress()
            if hitsServer {
                await server.crash()
            } else {
                running.send(SIGKILL)
            }
            let status = try await finish(running, "\(name) \(attempt)")
            if status == 0 && !hitsServer {
                log.note("\(name) \(attempt): sync ended (exit 0) as its kill was sent")
                continue
            }
            kills += 1
            if before < total { midTransferKills += 1 }
            let outcome = status == SIGKILL ? "killed" : "exit \(status)"
            log.note(
                "\(name) \(attempt): \(hitsServer ? "trendy-server" : "trendyctl sync") killed at \(before)/\(total) "
                    + "rows; the sync: \(outcome)")
            if hitsServer { server = try await server.restart(faults: .none, seed: settings.seed) }
            if let damaged = try integrity(device, server) { return "after \(name) \(attempt): \(damaged)" }
        }
        // A sync exits 75 while a breaker opened by the server's death waits out its backoff; a few more tries.
        for clean in 1...4 {
            let result = try await finish(try device.startSync(), "\(name) clean \(clean)")
            log.note("\(name) clean sync \(clean): exit \(result) at \(try progress())/\(total) rows")
            if result == 0 { return nil }
        }
        return "\(name): no clean sync after the kills (see the exit statuses above)"
    }

    /// Waits for a sync to exit; one that runs for over two minutes is killed and reported as hung.
    private func finish(_ running: ChildProcess.Running, _ label: String) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(120)
        while running.exitStatus == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        if running.exitStatus == nil {
            running.send(SIGKILL)
            let result = await running.result()
            throw ProofError("\(label): trendyctl sync hung for 120 s; stderr: \(result.stderr)")
        }
        let result = await running.result()
        if result.status != 0 && result.status != SIGKILL && !result.stderr.isEmpty {
            log.note("\(label): stderr: \(result.stderr.prefix(300))")
        }
        return result.status
    }

    private func integrity(_ device: CrashDevice, _ server: ProofServer) throws -> String? {
        for file in [device.databasePath, server.database] {
            let verdict = try SQLiteFile(file).integrityCheck()
            if verdict != "ok" { return "\(file) fails PRAGMA integrity_check: \(verdict)" }
        }
        return nil
    }

    /// After a phase: both files intact, nothing pending or failed, the device and the server hold exactly the
    /// written rows, field by field.
    private func verify(_ device: CrashDevice, server: ProofServer, expected: Entities) async throws -> String? {
        if let damaged = try integrity(device, server) { return damaged }
        let status = try await device.status()
        guard status.pending == 0 && status.failed == 0 else {
            return "\(device.name) has \(status.pending) pending and \(status.failed) failed changes after a clean sync"
        }
        let api = APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root),
            tokenProvider: StaticTokenProvider(server.token))
        let remote = try await Entities.server(api)
        let local = try device.entities(server: server)
        if remote.events.count != expected.events.count {
            return "the server holds \(remote.events.count) events; \(expected.events.count) were written"
        }
        if let difference = Entities.firstDifference("the server", remote, expected, skipping: []) {
            return "written → server: \(difference)"
        }
        if let difference = Entities.firstDifference(device.name, local, remote) { return difference }
        log.note("\(device.name): \(local.events.count) events, equal to the server's; integrity ok")
        return nil
    }
}
