import Foundation
import Models
import TestSupport
import TrendyServerTesting

/// A device of the crash test: `trendyctl` on its own database, config and token, as a user runs it.
struct CrashDevice {
    let name: String
    let databasePath: String
    let environment: [String: String]
    private let directory: URL

    init(name: String, directory: URL, server: ProofServer) {
        self.name = name
        self.directory = directory
        databasePath = directory.appendingPathComponent("\(name).sqlite").path
        environment = trendyctlEnvironment(
            home: directory.appendingPathComponent("home-\(name)"), database: databasePath, server: server)
    }

    func startSync() async throws -> ChildProcess.Running {
        try await ChildProcess.start("trendyctl", ["sync", "--json"], environment: environment)
    }

    /// `trendyctl status --json`: the pending and failed counts.
    func status() async throws -> (pending: Int, failed: Int) {
        let result = try await ChildProcess.run("trendyctl", ["status", "--json"], environment: environment)
        guard result.status == 0, let json = try? JSONText.parse(result.stdout),
            let pending = json["pending"]?.intValue, let failed = json["failed"]?.intValue
        else {
            throw ProofError("trendyctl status failed on \(name): exit \(result.status), \(result.stderr)")
        }
        return (pending, failed)
    }

    /// Every entity in this device's database, read through `EventStore` as an app would.
    func entities(server: ProofServer) throws -> Entities {
        let client = try ProofClient(
            name: name, directory: directory, server: server, clock: ManualClock(now: Date(), mode: .advancing))
        return try client.entities()
    }
}
