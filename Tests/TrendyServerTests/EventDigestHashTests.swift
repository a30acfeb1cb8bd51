import Foundation
import Logging
import Models
import Testing
import TrendyServerTesting

@testable import TrendyServer

/// Each event row keeps its digest hash (`EventDigestHashes`): the digest sums a column instead of hashing a
/// million canonical texts. These tests hold the column to the rule that makes that safe: a stored hash is always
/// the hash of the row as it reads back, on SQLite and on PostgreSQL, whatever wrote the row last.
@Suite("Event digest hashes")
struct EventDigestHashTests {
    static let type = "0190f5c0-3f00-7a11-8b22-0000000000a1"
    static let fence = "0190f5c0-3f00-7a11-8b22-0000000000c1"
    static let fenced = "0190f5c0-3f00-7a11-8b22-0000000000e1"

    static var storages: [String] {
        ["sqlite"] + (LiveTrendyServer.postgresTestStorage() == nil ? [] : ["postgres"])
    }

    @Test(
        "a stored hash is the row's hash after every kind of write; an update that writes none leaves none",
        arguments: storages)
    func storedHashesMatchTheRows(storage: String) async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("digest-hash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        if storage == "postgres" {
            configuration.storage = try #require(LiveTrendyServer.postgresTestStorage())
        } else {
            configuration.storage = .file(path: scratch.appendingPathComponent("server.sqlite").path)
        }
        try await LiveTrendyServer.with(configuration) { server in
            let token = server.newUser().token
            for request in DigestAcrossStoragesTests.requests() + Self.moreWrites() {
                let answer = try await RawHTTP.send(
                    request.method, server.root.text + request.path, token: token,
                    headers: ["Idempotency-Key": UUID().uuidString, "Content-Type": "application/json"],
                    body: request.body.map(RawHTTP.json))
                #expect((200..<300).contains(answer.status), "\(request.method) \(request.path): \(answer.text)")
            }
            let before = try await Self.digest(server, token)
            let rows = try await Self.open(configuration.storage)

            // The geofence's delete cleared the event's `geofence_id` with one UPDATE and no hash: the trigger
            // cleared the hash, so it cannot be stale; every other event kept the hash written with it.
            let hashes = try await rows.read { db in try Self.hashes(db) }
            #expect(hashes.count == 5, "two events of the shared requests, a batch of two, the fenced one")
            #expect(hashes.filter { $0.stored == nil }.map(\.id) == [Self.fenced])
            for row in hashes where row.stored != nil {
                #expect(row.stored == row.recomputed, "event \(row.id): the stored hash is not the row's")
            }

            // Filling hashes what has none, and the digest does not change: it summed the same values.
            let filled = try await rows.write(user: nil, claim: nil) { db in
                try EventDigestHashes.fill(db, lockingRows: storage == "postgres")
            }
            #expect(filled == 1)
            let after = try await rows.read { db in try Self.hashes(db) }
            #expect(after.allSatisfy { $0.stored != nil && $0.stored == $0.recomputed })
            #expect(try await Self.digest(server, token) == before)

            // A damaged column (not 32 bytes) is hashed from the row, not trusted and not fatal.
            try await rows.write(user: nil, claim: nil) { db in
                try db.execute(
                    sql: "UPDATE events SET digest_hash = ? WHERE id = ?", arguments: [[1, 2, 3], Self.fenced])
            }
            #expect(try await Self.digest(server, token) == before)
            try await rows.close()
        }
    }

    /// Writes the shared requests lack: an event that references a geofence the user then deletes, and a batch.
    static func moreWrites() -> [(method: String, path: String, body: String?)] {
        let batch = (1...2).map { "0190f5c0-3f00-7a11-8b22-0000000000f\($0)" }
        return [
            (
                "POST", "/api/v1/events/batch",
                #"{"events":[{"id":"\#(fenced)","event_type_id":"\#(type)","timestamp":"2026-02-01T08:00:00Z","#
                    + #""is_all_day":false,"source_type":"manual","geofence_id":"\#(fence)"},"#
                    + #"{"id":"\#(batch[0])","event_type_id":"\#(type)","timestamp":"2026-02-02T08:00:00.001Z","#
                    + #""is_all_day":false,"source_type":"manual","properties":{"n":{"type":"number","value":2.0}}},"#
                    + #"{"id":"\#(batch[1])","event_type_id":"\#(type)","timestamp":"2026-02-03T08:00:00Z","#
                    + #""is_all_day":false,"source_type":"manual","notes":"b"}]}"#
            ),
            ("DELETE", "/api/v1/geofences/\(fence)", nil),
        ]
    }

    /// A second handle on the server's database, as another process would open it.
    static func open(_ storage: ServerConfiguration.Storage) async throws -> any ServerStorage {
        switch storage {
        case .file(let path): return try SQLiteStorage(path: path)
        case .postgres(let location): return try await PostgresStorage(location, logger: Logger(label: "test"))
        case .inMemory: throw CancellationError()
        }
    }

    static func hashes(_ db: any StorageTransaction) throws -> [(id: String, stored: DigestSum?, recomputed: DigestSum)]
    {
        var rows: [(id: String, stored: DigestSum?, recomputed: DigestSum)] = []
        let hashColumn = Rows.eventColumnNames.count
        try db.forEachRow("SELECT \(Rows.eventColumns), digest_hash FROM events ORDER BY id", []) { row in
            let event = try Rows.event(row)
            rows.append(
                (
                    event.id, EventDigestHashes.stored(row, at: hashColumn),
                    DigestSum(hash: EventDigestHashes.hash(of: event))
                ))
            return true
        }
        return rows
    }

    static func digest(_ server: LiveTrendyServer, _ token: String) async throws -> SyncDigest {
        let answer = try await RawHTTP.send("GET", server.root.text + "/api/v1/sync/digest", token: token)
        #expect(answer.status == 200, "\(answer.text)")
        var digest = try JSONDecoder().decode(SyncDigest.self, from: answer.body)
        digest.cursor = 0
        return digest
    }
}
