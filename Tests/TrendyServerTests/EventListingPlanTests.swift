import GRDB
import Testing

@testable import TrendyServer

/// A keyset page must cost what it lists, whatever its depth (api-v1 §5.3.1): SQLite's plan is checked on the
/// server's own schema.
@Suite("Event listing plans (SQLite)")
struct EventListingPlanTests {
    @Test("a keyset page walks the (user, timestamp, id) index from its token: no sort, no scan of the account")
    func keysetPagesUseTheTimeIndex() async throws {
        let storage = try SQLiteStorage(path: nil)
        for after in [false, true] {
            let plan = try await storage.writer.read { db in
                let arguments: StatementArguments = after ? ["user", 5, 5, "a", 51] : ["user", 51]
                return try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + EventListing.keysetSQL(after: after), arguments: arguments
                ).map { $0["detail"] as String }
            }
            let bound = after ? "(user_id=? AND timestamp<?)" : "(user_id=?)"
            #expect(
                plan.contains { $0.contains("USING COVERING INDEX events_by_user_time \(bound)") },
                "the page's ids come from the index, bounded by the token, after: \(after): \(plan)")
            #expect(!plan.contains { $0.contains("SCAN events") }, "no scan of the events, after: \(after): \(plan)")
        }
    }
}
