import Foundation
import GRDB
import Models
import Protocols

// MARK: - DS20–DS21: acknowledged versions (sync-engine R15)

extension LocalStore {
    public func recordAcknowledged(_ versions: [AcknowledgedVersion]) throws {
        guard !versions.isEmpty else { return }
        try perform { db in
            // One statement, prepared once: a bootstrap records every entity it takes.
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO acknowledged_versions (entity_type, entity_id, acknowledged_at, deleted, created_at)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (entity_id, entity_type) DO UPDATE SET
                        acknowledged_at = excluded.acknowledged_at, deleted = excluded.deleted,
                        created_at = excluded.created_at
                    WHERE excluded.acknowledged_at >= acknowledged_versions.acknowledged_at
                    """)
            for version in versions {
                try statement.execute(arguments: [
                    version.entityType.rawValue, version.id.lowercased(), version.acknowledgedAt.millisecondsSince1970,
                    version.deleted, version.createdAt?.millisecondsSince1970,
                ])
            }
        }
    }

    public func acknowledgedVersions(ids: Set<String>?, acknowledgedAfter: Date?) throws -> [AcknowledgedVersion] {
        try perform { db in
            var sql = "SELECT entity_type, entity_id, acknowledged_at, deleted, created_at FROM acknowledged_versions"
            var arguments: StatementArguments = []
            if let acknowledgedAfter {
                // By the index on the time: a pull asks for what its own position's time leaves out.
                sql += " WHERE acknowledged_at > ?"
                arguments += [acknowledgedAfter.millisecondsSince1970]
            }
            var rows: [Row] = []
            if let ids {
                // By primary key, a few hundred ids a statement: a push asks for one, a verify for what differs.
                let sorted = ids.map { $0.lowercased() }.sorted()
                let joiner = acknowledgedAfter == nil ? " WHERE" : " AND"
                for start in stride(from: 0, to: sorted.count, by: 500) {
                    let chunk = Array(sorted[start..<min(start + 500, sorted.count)])
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    rows += try Row.fetchAll(
                        db, sql: "\(sql)\(joiner) entity_id IN (\(marks))",
                        arguments: arguments + StatementArguments(chunk))
                }
            } else {
                rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            }
            let versions = try rows.compactMap { row -> AcknowledgedVersion? in
                guard let type = MutationEntityType(rawValue: try row.decode(String.self, atIndex: 0)) else {
                    return nil
                }
                return AcknowledgedVersion(
                    entityType: type, id: try row.decode(String.self, atIndex: 1),
                    acknowledgedAt: Date(millisecondsSince1970: try row.decode(Int64.self, atIndex: 2)),
                    deleted: try row.decode(Bool.self, atIndex: 3),
                    createdAt: try row.decode(Int64?.self, atIndex: 4).map(Date.init(millisecondsSince1970:)))
            }
            return versions.sorted { ($0.acknowledgedAt, $0.id) < ($1.acknowledgedAt, $1.id) }
        }
    }
}
