import Foundation
import Persistence
import Protocols
import TestSupport
import TestSupportContracts
import Testing

/// R13 on the SQLite file (with a second connection as another process), in memory, and on the mock.
@Suite("Observation contract")
struct ObservationContractTests {
    @Test("file store, with another process's connection", arguments: ObservationContract.checks)
    func fileStore(_ check: ObservationContract.Check) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trendy.sqlite")
        try await check.run {
            ObservationContract.Subject(
                factory: try DefaultDataStoreFactory(.file(path: path)),
                otherProcess: try DefaultDataStoreFactory(.file(path: path)))
        }
    }

    @Test("in-memory store", arguments: ObservationContract.checks)
    func inMemoryStore(_ check: ObservationContract.Check) async throws {
        try await check.run {
            ObservationContract.Subject(factory: try DefaultDataStoreFactory(.inMemory), otherProcess: nil)
        }
    }

    @Test("MockDataStoreFactory", arguments: ObservationContract.checks)
    func mock(_ check: ObservationContract.Check) async throws {
        try await check.run { ObservationContract.Subject(factory: try MockDataStoreFactory(), otherProcess: nil) }
    }
}
