import ArgumentParser
import Foundation
import Hashing
import Models
import Networking
import Persistence
import Protocols
import Sync

/// One measured sync in a process of its own, so that its peak RSS is its own. `trendy-bench sync` runs it;
/// it prints one JSON line.
struct SyncScenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-scenario", abstract: "One measured sync (run by `trendy-bench sync`).",
        shouldDisplay: false)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        /// `events` local events made offline, then one timed sync that pushes them.
        case push
        /// A fresh device; one timed sync that bootstraps the account.
        case bootstrap
        /// A device that is up to date; one timed sync with nothing to do.
        case noop
    }

    enum Profile: String, ExpressibleByArgument, CaseIterable {
        /// trendyctl's choice: `SyncConfiguration.throughput` (batch 500, feed page 500, bootstrap page 1000).
        case ours
        /// The original app's constants, which are also sync-engine §7's defaults (50, 100, 50).
        case original

        func configuration(_ root: ServerRoot) -> SyncConfiguration {
            switch self {
            case .ours: .throughput(serverRoot: root)
            case .original: .standard(serverRoot: root)
            }
        }
    }

    struct Result: Codable {
        var seconds: Double
        var requests: Int
        var peakResidentMegabytes: Double
        var outcome: String
        var pushed: Int
        var pulled: Int
        var localEvents: Int
    }

    @Option var kind: Kind
    @Option var profile: Profile
    @Option var server: String
    @Option var token: String
    @Option(help: "Local events to push (push).") var events = 0
    @Option(help: "The device's database file (must not exist).") var database: String

    func run() async throws {
        guard let root = ServerRoot(server) else { throw ValidationError("not a server root: \(server)") }
        let client = APIClient(
            configuration: try APIClient.Configuration(serverRoot: root, requestTimeout: 120, resourceTimeout: 600),
            tokenProvider: StaticTokenProvider(token))
        let stores = try DefaultDataStoreFactory(.file(path: database))
        let engine = SyncEngine(
            networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(),
            configuration: profile.configuration(root))
        let local = EventStore(engine: engine, dataStoreFactory: stores)

        switch kind {
        case .push:
            let type = try await local.createEventType(name: "Bench")
            try await expectSynced(engine.performSync())
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            for index in 0..<events {
                try await local.createEvent(eventTypeId: type.id, timestamp: start + Double(index)) {
                    $0.notes = "offline event \(index)"
                }
            }
        case .noop:
            try await expectSynced(engine.performSync())
            try await expectSynced(engine.performSync())  // the first incremental round pulls the bootstrap's tail
        case .bootstrap:
            break
        }

        let requestsBefore = client.sentRequestCount
        var report = SyncReport(outcome: .synced(bootstrapped: false))
        let seconds = await Measure.secondsAwaiting({ report = await engine.performSync() })
        let result = Result(
            seconds: seconds, requests: client.sentRequestCount - requestsBefore,
            peakResidentMegabytes: Measure.peakResidentMegabytes ?? 0, outcome: report.outcome.name,
            pushed: report.pushed, pulled: report.pulled, localEvents: try local.events().count)
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }

    private func expectSynced(_ report: SyncReport) throws {
        guard report.outcome.name == "synced" else { throw ValidationError("setup sync ended \(report.outcome)") }
    }
}
