import GRDB
import Testing

@testable import TrendyServer

/// A batch's look-ups must cost what its items ask for, not what the account holds: SQLite's plan for each is
/// checked on the server's own schema.
@Suite("Batch look-up plans (SQLite)")
struct BatchLookupPlanTests {
    @Test("earlier creates are looked up by entity, not by walking all of the user's changes")
    func earlierCreatesUseTheEntityIndex() async throws {
        let storage = try SQLiteStorage(path: nil)
        let plan = try await storage.writer.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + BatchLookups.earlierCreatesSQL(ids: 3),
                arguments: ["user", 0, "a", "b", "c"]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX changes_by_entity (user_id=? AND entity_id=?)") })
        #expect(!plan.contains { $0.contains("changes_by_user") || $0.contains("TEMP B-TREE") })
    }
}
