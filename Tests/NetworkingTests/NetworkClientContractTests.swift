import Foundation
import Models
import Networking
import Protocols
import TestSupport
import TestSupportContracts
import Testing
import TrendyServerTesting

/// One contract, two backends, identical assertions (issue: "the contract suite's assertions run on both").
@Suite("NetworkClient contract")
struct NetworkClientContractTests {
    @Test("MockNetworkClient on InMemoryTrendyServer", arguments: NetworkClientContract.checks)
    func mockNetworkClient(_ check: NetworkClientContract.Check) async throws {
        try await check.run {
            let model = InMemoryTrendyServer(clock: SystemClock())
            return NetworkClientContract.Subject(
                client: MockNetworkClient(server: model, userId: UUID().uuidString),
                otherUser: MockNetworkClient(server: model, userId: UUID().uuidString))
        }
    }

    @Test("APIClient against trendy-server on 127.0.0.1", arguments: NetworkClientContract.checks)
    func apiClientAgainstTrendyServer(_ check: NetworkClientContract.Check) async throws {
        try await LiveTrendyServer.with { server in
            try await check.run {
                NetworkClientContract.Subject(
                    client: try APIClient.forTests(server), otherUser: try APIClient.forTests(server))
            }
        }
    }
}

extension APIClient {
    /// A client of a fresh user of `server`.
    static func forTests(_ server: LiveTrendyServer, clock: any SyncClock = SystemClock()) throws -> APIClient {
        APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root),
            tokenProvider: StaticTokenProvider(server.newUser().token), clock: clock)
    }
}
