import Foundation
import Models
import Networking
import Protocols
import TrendyServerTesting

/// A release `trendy-server --in-memory` in a process of its own on 127.0.0.1, with static tokens, for the sync
/// benchmarks: what is measured in the benchmark process is the client alone.
public final class BenchServer: Sendable {
    public let process: ServerProcess
    public let root: ServerRoot

    private init(process: ServerProcess, root: ServerRoot) {
        self.process = process
        self.root = root
    }

    /// Starts the server on `storage` (in memory unless told) with one static token per user: `token-1` …
    /// `token-N`, for users of fixed ids.
    public static func start(users: Int, storage: [String] = ["--in-memory"]) async throws -> BenchServer {
        let tokens = (1...users).map { "--token=\(token(user: $0)):\(userId($0))" }
        let process = try await ServerProcess.start(storage + ["--port", "0", "--log-level", "error"] + tokens)
        guard let root = ServerRoot(process.url) else {
            process.stop()
            throw Failure.badURL(process.url)
        }
        return BenchServer(process: process, root: root)
    }

    public static func token(user: Int) -> String { "token-\(user)" }
    static func userId(_ user: Int) -> String { String(format: "0190f5c0-3f00-7a11-8b22-%012d", user) }

    /// A client of `user` with timeouts long enough for the largest accounts.
    public func client(user: Int) throws -> APIClient {
        APIClient(
            configuration: try APIClient.Configuration(serverRoot: root, requestTimeout: 120, resourceTimeout: 600),
            tokenProvider: StaticTokenProvider(Self.token(user: user)))
    }

    /// `count` events of one new type for `user`, 500 per batch, one second apart.
    public func seed(user: Int, events count: Int) async throws {
        let client = try client(user: user)
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let type = try await client.createEventType(
            CreateEventTypeRequest(id: UUIDv7.generate(at: start), name: "Seeded", color: "#336699", icon: "chart"))
        for first in stride(from: 0, to: count, by: 500) {
            let batch = (first..<min(first + 500, count)).map { number in
                let timestamp = start + Double(number)
                return CreateEventRequest(
                    id: UUIDv7.generate(at: timestamp), eventTypeId: type.id, timestamp: timestamp,
                    notes: "seeded event \(number)", properties: [:])
            }
            let answer = try await client.createEventsBatch(batch)
            guard answer.failed == 0 else { throw Failure.seeding(answer.errors.prefix(3).map { "\($0)" }) }
        }
    }

    public func stop() { process.stop() }

    public enum Failure: Error {
        case badURL(String)
        case seeding([String])
    }
}
