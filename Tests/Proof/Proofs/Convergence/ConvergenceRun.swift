import Foundation
import Models
import Networking
import Persistence
import Protocols
import Sync
import TestSupport
import TrendyServer
import TrendyServerTesting

/// What one seed is run with.
public struct ProofSettings: Sendable {
    public var seed: UInt64
    /// Random operations before the faults stop.
    public var operations = 150
    public var clients = 3
    public var faults = FaultConfiguration.convergenceRun
    /// More than one: that many `trendy-server` instances on one PostgreSQL schema (a new schema of the database
    /// `TRENDY_TEST_POSTGRES_URL` names) behind a `LoopbackBalancer`, each device on a lane of its own.
    public var instances = 1
    /// With several instances: the chance, after each operation, that one device's lane moves to another instance.
    public var switchProbability = 0.15
    /// The first this many devices run in live mode (R12) the whole time, on real time, while all of them also make
    /// the random moves; the server cuts streams mid-batch and restarts now and then.
    public var liveDevices = 0

    public init(seed: UInt64) { self.seed = seed }
}

/// How one seed ended.
public struct ProofOutcome: SeededOutcome {
    public let seed: UInt64
    /// The first broken guarantee, or nil when every check passed.
    public let divergence: String?
    /// Every operation, in order, with what it did.
    public let log: [String]
    public let deadLetters: Int
    public let serverEntities: Int
    /// How often each move was made (and refused locally), by name.
    public var moves: [String: Int] = [:]
    /// Comparisons of every device with the server after a quiet pass while the faults were on, and passes that
    /// did not get quiet in time (no comparison).
    public var quietChecks = 0
    public var unquietChecks = 0
    /// With several instances: the connections the balancer gave each one, and how often a device was moved.
    public var connectionsPerInstance: [Int] = []
    public var switches = 0
    /// The run did not finish in its time limit.
    public var hung = false

    public var passed: Bool { divergence == nil }

    /// The seed, the operation log and the first divergence, for a failure report.
    public var report: String {
        (["seed \(seed): \(divergence ?? "passed")", "operations:"] + log.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// One seeded run: three devices, random local work and syncs against a `trendy-server` process with faults on,
/// then the faults stop, every device syncs until quiet, and the verdict checks the guarantees of sync-engine §9.
final class ConvergenceRun {
    let settings: ProofSettings
    var random: SeededRandom
    var ledger = Ledger()
    /// The merge move's field writes.
    var fields = FieldLedger()
    var clients: [ProofClient] = []
    var switches = 0
    var moves: [String: Int] = [:]
    /// Broken rules seen during the run (a lost concurrent edit, a device unequal to the server after a quiet pass).
    var localViolations: [String] = []
    var quietChecks = 0
    var unquietChecks = 0
    /// Shared by the devices; starts ten minutes back so that waits on it never push ids past the server's
    /// tolerance for ids from the future.
    let clock = ManualClock(now: Date().addingTimeInterval(-600), mode: .advancing)
    /// The operation log, readable from the watchdog while the run goes on.
    let log: LogSink
    /// What each live device did, for the exactly-once check.
    var liveWatches: [LiveWatch] = []
    /// The live devices' short-lived tokens.
    var expiringTokens: [ExpiringTokens] = []
    var serverRestarts = 0
    /// The trendy-server processes of the run (several instances on PostgreSQL), restarted by some moves.
    var servers: [ProofServer] = []
    /// The server's last backup, for the restore move (one instance on SQLite).
    var backup: ServerBackup?
    /// Devices that owe a verify since an unmarked copy of the server's file was put back.
    var verifyOwed: Set<String> = []
    /// The feed as it stood before each compaction (api-v1 §6.8), by change id: the field ledger reads every value
    /// the server ever took, and compaction removes the superseded ones from the server's own feed.
    var feedBeforeCompactions: [Int64: ChangeEntry] = [:]

    init(settings: ProofSettings, log: LogSink) {
        self.settings = settings
        self.log = log
        random = SeededRandom(seed: settings.seed)
    }

    func run() async throws -> ProofOutcome {
        let directory = try makeScratchDirectory("trendy-proof-\(settings.seed)")
        defer { removeRunDirectory(directory, log: log) }
        servers = try await startServers(in: directory)
        defer { for server in servers { server.stop() } }
        let balancer = servers.count > 1 ? LoopbackBalancer(backendPorts: servers.map(\.port)) : nil
        defer { balancer?.stop() }
        var lanes: [LoopbackBalancer.Lane] = []
        for index in 0..<settings.clients {
            var root = servers[0].root
            if let balancer {
                let lane = try await balancer.addLane(routedTo: index % servers.count)
                lanes.append(lane)
                guard let laneRoot = ServerRoot("http://127.0.0.1:\(lane.port)") else {
                    throw ProofError("no server root for the balancer's port \(lane.port)")
                }
                root = laneRoot
            }
            let live = index < settings.liveDevices
            // A live device's tokens expire every few seconds: its stream meets `reauth` and its requests 401s.
            let tokens =
                live ? ExpiringTokens(user: servers[0].user, lifetime: Double.random(in: 2...5, using: &random)) : nil
            if let tokens { expiringTokens.append(tokens) }
            clients.append(
                try ProofClient(
                    name: live ? "live\(index)" : "client\(index)", directory: directory, root: root,
                    token: servers[0].token, clock: live ? SystemClock() : clock, live: live, tokens: tokens))
        }
        for client in clients where client.isLive {
            liveWatches.append(await LiveWatch(client.engine))
            await client.startLive()
        }
        log.note("faults: \(settings.faults.summary)")
        // Devices whose last pull was cut off after pages it applied, its check at the feed's head left to the next
        // pull (sync-engine R15): counted each time one starts carrying it.
        var carryingHeadCheck: Set<String> = []
        for step in 0..<settings.operations {
            let index = Int.random(in: 0..<clients.count, using: &random)
            let operation = Operation.random(using: &random)
            try clients[index].export()
            try acknowledgeFieldWrites()
            let line = try await apply(operation, on: index)
            log.note("\(step): \(line)")
            for client in clients {
                let carried = try client.stores.saved { try $0.loadEngineState() }.headCheckStart != nil
                if carried && carryingHeadCheck.insert(client.name).inserted {
                    moves["a pull cut off, its head check carried to the next", default: 0] += 1
                } else if !carried {
                    carryingHeadCheck.remove(client.name)
                }
            }
            if random.chance(0.04) {
                log.note("\(step): quiet check: \(try await quietCheck(servers[0]))")
            }
            if clients[index].offlineFor > 0 && operation != .goOffline { clients[index].offlineFor -= 1 }
            clock.advance(by: Double(Int.random(in: 0..<200, using: &random)) / 1000)
            if settings.liveDevices > 0, servers.count == 1, random.chance(0.02) {
                // Every open stream dies with the process, maybe in the middle of a batch.
                servers[0] = try await servers[0].restart(faults: settings.faults, seed: settings.seed &+ UInt64(step))
                serverRestarts += 1
                moves["restartServer", default: 0] += 1
                log.note("\(step): trendy-server restarted (live streams cut)")
            }
            if let balancer, Double.random(in: 0..<1, using: &random) < settings.switchProbability {
                let moved = Int.random(in: 0..<lanes.count, using: &random)
                let instance = (balancer.backend(of: lanes[moved]) + 1) % servers.count
                await balancer.route(lanes[moved], to: instance)
                switches += 1
                log.note("\(step): \(clients[moved].name) now reaches instance \(instance)")
            }
        }
        for client in clients where client.isLive { await client.engine.stopLive() }
        for (index, watch) in liveWatches.enumerated() {
            if let repeated = watch.firstRepeat() { localViolations.append("\(clients[index].name): \(repeated)") }
            moves["liveStreamedEntries", default: 0] += watch.streamed
        }
        if !expiringTokens.isEmpty {
            moves["liveTokenRenewals", default: 0] += expiringTokens.reduce(0) { $0 + $1.renewals }
        }
        var restarted: [ProofServer] = []
        for server in servers { restarted.append(try await server.restart(faults: .none, seed: settings.seed)) }
        servers = restarted
        log.note("faults off: every trendy-server restarted on the same storage and port")
        if let stuck = try await settle() {
            return ProofOutcome(
                seed: settings.seed, divergence: stuck, log: log.lines, deadLetters: 0, serverEntities: 0)
        }
        try acknowledgeFieldWrites()
        let server = servers[0]
        let api = APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root),
            tokenProvider: StaticTokenProvider(server.token))
        let remote = try await Entities.server(api)
        let divergence = try await verdict(server: remote, diagnosisServer: server)
        var deadLetters = 0
        for client in clients { deadLetters += try await client.engine.mutations(state: .failed).count }
        var outcome = ProofOutcome(
            seed: settings.seed, divergence: divergence, log: log.lines, deadLetters: deadLetters,
            serverEntities: remote.allIds.count)
        outcome.connectionsPerInstance = balancer?.connectionsForwarded ?? []
        outcome.switches = switches
        outcome.moves = moves
        outcome.quietChecks = quietChecks
        outcome.unquietChecks = unquietChecks
        return outcome
    }

    /// While the faults go on: every online device syncs until a whole pass moves nothing and leaves no type's
    /// definitions to fetch again (at most six passes), then each is compared with the server field by field, apart
    /// from what it holds by design (`heldIds`). A difference is a broken guarantee (sync-engine §9.6), recorded for
    /// the verdict.
    ///
    /// Live devices pause for the check: their background rounds would otherwise push between the quiet pass and the
    /// comparison, and a device that synced before that push would look behind.
    func quietCheck(_ server: ProofServer) async throws -> String {
        for client in clients where client.isLive { await client.engine.stopLive() }
        let result = try await quietCheckWhilePaused(server)
        for client in clients where client.isLive { await client.startLive() }
        return result
    }

    private func quietCheckWhilePaused(_ server: ProofServer) async throws -> String {
        let online = clients.indices.filter { clients[$0].offlineFor == 0 }
        for pass in 1...6 {
            var quiet = true
            for index in online {
                let report = await clients[index].sync()
                if case .rateLimited(let seconds) = report.outcome {
                    if seconds > 5 {
                        await clients[index].engine.resetCircuitBreaker()
                    } else {
                        clock.advance(by: seconds)
                    }
                }
                let settled = report.outcome.name == "synced" || report.outcome.name == "partial"
                if !settled || report.pushed + report.pulled + report.failed + report.deadLettered > 0 { quiet = false }
                if await !verifyIfOwed(index) { quiet = false }
                // A type whose definitions could not be fetched (S84) is fetched again by the next round: work left.
                if try clients[index].hasUnfetchedDefinitions() { quiet = false }
            }
            guard quiet else { continue }
            guard let remote = try await serverEntities(server) else { break }
            for index in online {
                let client = clients[index]
                if let difference = Entities.firstDifference(
                    client.name, try client.entities(), remote, skipping: try client.heldIds())
                {
                    localViolations.append(
                        "after a quiet pass: \(difference)\n" + (try await diagnosis(of: difference, server: server)))
                }
            }
            quietChecks += 1
            return "quiet after \(pass) pass(es), \(online.count) devices compared with the server"
        }
        unquietChecks += 1
        return "not quiet in 6 passes (faults): no comparison"
    }

    /// For a difference naming an id: the server's feed entries of that id and each device's cursor, queue and debts
    /// for it, so that a report shows the path.
    func diagnosis(of difference: String, server: ProofServer) async throws -> String {
        let words = difference.split(whereSeparator: { $0 == " " || $0 == "," || $0 == ":" })
        guard let id = words.first(where: { UUIDText.isCanonical(String($0)) }) else {
            return ""
        }
        var lines: [String] = []
        let api = APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root, maxRateLimitRetries: 0),
            tokenProvider: StaticTokenProvider(server.token))
        var since: Int64 = 0
        for _ in 0..<200 {
            guard let page = try? await api.getChanges(since: since, limit: 500) else { break }
            for entry in page.changes where entry.entityId.lowercased() == id {
                let at = entry.createdAt.map { RFC3339.string(from: $0) } ?? "-"
                lines.append("  server change \(entry.id): \(entry.operation) \(entry.entityType) at \(at)")
            }
            since = page.nextCursor
            if !page.hasMore { break }
        }
        for client in clients {
            let store = client.stores.makeDataStore()
            let cursor = try store.loadEngineState().cursor
            let queue = try store.fetchMutations(entityId: String(id)).map {
                "\($0.operation)/\($0.state)/\($0.lastError ?? "-")"
            }
            let owed = try store.owedEntities().filter { $0.id == id }.map { "owed after \($0.after ?? "-")" }
            try store.save()
            lines.append("  \(client.name): cursor \(cursor), queue \(queue), \(owed)")
        }
        return lines.joined(separator: "\n")
    }

    /// The server's data, read again while a fault answers (the faults are on during the run); nil if it keeps failing.
    func serverEntities(_ server: ProofServer) async throws -> Entities? {
        let api = APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root, maxRateLimitRetries: 0),
            tokenProvider: StaticTokenProvider(server.token))
        for _ in 0..<8 {
            if let entities = try? await Entities.server(api) { return entities }
        }
        return nil
    }

    /// One server on SQLite, or `settings.instances` on a new schema of the test PostgreSQL database.
    func startServers(in directory: URL) async throws -> [ProofServer] {
        guard settings.instances > 1 else {
            return [try await ProofServer.start(in: directory, faults: settings.faults, seed: settings.seed)]
        }
        guard let location = LiveTrendyServer.postgresTestURL() else {
            throw ProofError(
                "\(settings.instances) instances need PostgreSQL: \(LiveTrendyServer.postgresUnavailableReason)")
        }
        log.note("instances: \(settings.instances) on \(location.redacted), each device through a balancer lane")
        return try await ProofServer.startInstances(
            settings.instances, postgres: location.url, faults: settings.faults, seed: settings.seed)
    }

    /// With the faults off: breakers are reset, and every device syncs in turn until a whole pass moves nothing.
    /// Discards converge on their own (R9): no device resyncs in full.
    func settle() async throws -> String? {
        for index in clients.indices {
            clients[index].offlineFor = 0
            await clients[index].engine.resetCircuitBreaker()
        }
        // A change the server keeps refusing needs five rounds to become a dead letter.
        for pass in 1...12 {
            var quiet = true
            for index in clients.indices {
                let report = await clients[index].sync()
                log.note(
                    "settle \(pass): \(clients[index].name) → \(report.outcome) pushed \(report.pushed) "
                        + "pulled \(report.pulled) failed \(report.failed)")
                // `partial` stays when changes wait behind a dead letter (a child of a create that was refused).
                let settled = report.outcome.name == "synced" || report.outcome.name == "partial"
                let moved = report.pushed + report.pulled + report.failed + report.deadLettered
                if !settled || moved > 0 { quiet = false }
                if await !verifyIfOwed(index) { quiet = false }
            }
            if quiet { return nil }
        }
        return "the devices did not settle in 12 passes without faults"
    }
}
