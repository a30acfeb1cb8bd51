import Foundation
import Testing
import TrendyServer
import TrendyServerTesting

/// The change feed never skips a row under concurrent writers (docs/server.md). `make proof` runs the
/// PostgreSQL case 100 times (`trendy-proof --parts feed`).
@Suite("Change feed under concurrent writers", .serialized)
struct ConcurrentFeedTests {
    @Test(
        "two instances on PostgreSQL, 8 writers of one user, 3 readers paging: each reader sees every change once, in order",
        .requiresPostgreSQL,
        arguments: 1...5)
    func postgresTwoInstances(run: Int) async throws {
        let storage = try #require(LiveTrendyServer.postgresTestStorage())
        let report = try await ConcurrentFeedCheck.run(storage: storage, instances: 2)
        #expect(report.findings == [], "run \(run): \(report)")
        #expect(report.created == 8 * 20 + 8 * 6 * 2, "\(report)")
        #expect(report.changes == report.created + 1)
    }

    @Test("one instance on SQLite: the same check")
    func sqlite() async throws {
        let report = try await ConcurrentFeedCheck.run(storage: .inMemory, instances: 1)
        #expect(report.findings == [], "\(report)")
        #expect(report.changes == report.created + 1 && report.created > 0)
    }
}
