import Crypto
import Foundation
import Hashing
import Models
import Synchronization

/// `Idempotency-Key` handling (api-v1 §7): byte-exact replays of stored 2xx answers, 422 on a reused key with
/// another body, 409 while the first request with the key is still running, 24 h expiry.
final class IdempotencyGuard: Sendable {
    /// The record of api-v1 §7 as the in-memory server keeps it too; its answer here is the bytes that were sent.
    typealias Record = IdempotencyRecord<StoredAnswer>
    typealias Scope = Record.Scope

    /// A stored answer, byte for byte.
    struct StoredAnswer: Sendable {
        let status: Int
        let contentType: String
        let body: [UInt8]
    }

    static let lifetime: Int64 = 24 * 3_600_000

    private let inFlight = Mutex<[Scope: String]>([:])
    let dialect: Dialect

    init(dialect: Dialect) {
        self.dialect = dialect
    }

    /// 1–255 visible ASCII characters; empty means "no key".
    static func key(from header: String?) throws(APIError) -> String? {
        guard let header, !header.isEmpty else { return nil }
        guard header.utf8.count <= 255, header.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError(.badRequest, "Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        return header
    }

    /// SHA-256 of the body's canonical JSON (sorted keys, no whitespace), or of the raw bytes when not JSON; and the
    /// body's JSON when it parsed, which the handler reads instead of parsing the body a second time.
    static func fingerprinted(_ body: [UInt8]) -> (fingerprint: String, json: JSONValue?) {
        Record.fingerprint(of: body) { SHA256.hash(data: $0).hexString }
    }

    /// Registers the request as in flight, or refuses it when the same scope is running
    /// (`Dialect.refusesRepeatsInFlight`).
    func begin(_ scope: Scope, fingerprint: String) throws(APIError) {
        guard dialect.refusesRepeatsInFlight else { return }
        try inFlight.withLock { (running: inout [Scope: String]) throws(APIError) in
            if let other = running[scope] {
                guard other == fingerprint else { throw Self.mismatch }
                throw Self.inFlight
            }
            running[scope] = fingerprint
        }
    }

    func end(_ scope: Scope) {
        _ = inFlight.withLock { $0.removeValue(forKey: scope) }
    }

    static let inFlight = APIError(
        .idempotencyInFlight, "a request with this Idempotency-Key is still being processed; retry shortly",
        retryAfter: 1)

    static let mismatch = APIError(
        .idempotencyMismatch, "this Idempotency-Key was used with a different request body; use a new key")

    func stored(_ scope: Scope, now: Int64, _ db: any StorageTransaction) throws -> Record? {
        guard
            let record = try db.row(
                sql: """
                    SELECT fingerprint, status, content_type, body FROM idempotency_records
                    WHERE user_id = ? AND method = ? AND path = ? AND key = ? AND created_at > ?
                    """, arguments: [scope.user, scope.method, scope.path, scope.key, now - Self.lifetime],
                { row in
                    Record(
                        fingerprint: try row.decode(String.self, atIndex: 0),
                        answer: StoredAnswer(
                            status: try row.decode(Int.self, atIndex: 1),
                            contentType: try row.decode(String.self, atIndex: 2),
                            body: try row.decode([UInt8].self, atIndex: 3)))
                })
        else { return nil }
        return record
    }

    func store(_ scope: Scope, _ record: Record, now: Int64, _ db: any StorageTransaction) throws {
        try db.execute(
            sql: """
                INSERT INTO idempotency_records
                (user_id, method, path, key, fingerprint, status, content_type, body, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, method, path, key) DO UPDATE SET fingerprint = excluded.fingerprint,
                    status = excluded.status, content_type = excluded.content_type, body = excluded.body,
                    created_at = excluded.created_at
                """,
            arguments: [
                scope.user, scope.method, scope.path, scope.key, record.fingerprint, record.answer.status,
                record.answer.contentType, record.answer.body, now,
            ])
    }

    static func pruneExpired(now: Int64, _ db: any StorageTransaction) throws {
        try db.execute(sql: "DELETE FROM idempotency_records WHERE created_at <= ?", arguments: [now - lifetime])
    }
}
