import Foundation
import Models
import Networking
import Protocols
import Synchronization
import TestSupport
import TestSupportContracts
import Testing
import TrendyServer
import TrendyServerTesting

/// One contract, two backends, identical assertions (issue: "the contract suite's assertions run on both").
@Suite("NetworkClient contract")
struct NetworkClientContractTests {
    @Test("MockNetworkClient on InMemoryTrendyServer", arguments: NetworkClientContract.checksWithFaults)
    func mockNetworkClient(_ check: NetworkClientContract.Check) async throws {
        try await check.run {
            let model = InMemoryTrendyServer(clock: SystemClock())
            return NetworkClientContract.Subject(
                client: MockNetworkClient(server: model, userId: UUID().uuidString),
                otherUser: MockNetworkClient(server: model, userId: UUID().uuidString),
                streamFaults: NetworkClientContract.StreamFaults(
                    script: { model.scriptStreamFault($0) },
                    clientWithoutStreamRoute: {
                        // The original backend: no revision-3 features, so no stream route.
                        MockNetworkClient(
                            server: InMemoryTrendyServer(clock: SystemClock(), features: ServerFeatures([])),
                            userId: UUID().uuidString)
                    }))
        }
    }

    @Test("APIClient against trendy-server on 127.0.0.1", arguments: NetworkClientContract.checksWithFaults)
    func apiClientAgainstTrendyServer(_ check: NetworkClientContract.Check) async throws {
        let scripted = Mutex<[ServerConfiguration.ScriptedStreamFault]>([])
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.testHooks.scriptedStreamFault = { _ in
            scripted.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
        var original = LiveTrendyServer.testConfiguration()
        original.quirks = .original
        try await LiveTrendyServer.with(configuration) { server in
            try await LiveTrendyServer.with(original) { originalServer in
                try await check.run {
                    NetworkClientContract.Subject(
                        client: try APIClient.forTests(server), otherUser: try APIClient.forTests(server),
                        streamFaults: NetworkClientContract.StreamFaults(
                            script: { fault in
                                scripted.withLock {
                                    $0.append(fault == .reset ? .reset : .cutMidEvent)
                                }
                            },
                            clientWithoutStreamRoute: { try APIClient.forTests(originalServer) }))
                }
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
