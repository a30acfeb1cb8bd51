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
                    INSERT INTO acknowledged_versions (entity_type, entity_id, acknowledged_at, deleted)
                    VALUES (?, ?, ?, ?)
                    ON CONFLICT (entity_type, entity_id) DO UPDATE SET
                        acknowledged_at = excluded.acknowledged_at, deleted = excluded.deleted
                    WHERE excluded.acknowledged_at >= acknowledged_versions.acknowledged_at
                    """)
            for version in versions {
                try statement.execute(arguments: [
                    version.entityType.rawValue, version.id.lowercased(), version.acknowledgedAt.millisecondsSince1970,
                    version.deleted,
                ])
            }
        }
    }

    public func acknowledgedVersions(ids: Set<String>?) throws -> [AcknowledgedVersion] {
        try perform { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT entity_type, entity_id, acknowledged_at, deleted FROM acknowledged_versions
                        ORDER BY acknowledged_at, entity_id
                        """))
            return try rows.compactMap { row -> AcknowledgedVersion? in
                let id = try row.decode(String.self, atIndex: 1)
                guard ids?.contains(id) ?? true,
                    let type = MutationEntityType(rawValue: try row.decode(String.self, atIndex: 0))
                else { return nil }
                return AcknowledgedVersion(
                    entityType: type, id: id,
                    acknowledgedAt: Date(millisecondsSince1970: try row.decode(Int64.self, atIndex: 2)),
                    deleted: try row.decode(Bool.self, atIndex: 3))
            }
        }
    }
}
