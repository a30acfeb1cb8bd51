import Foundation
import Persistence
import Protocols
import TestSupport
import TestSupportContracts
import Testing

/// The `DataStoreProtocol` contract, against the SQLite file store and the in-memory store.
@Suite("DataStore contract: file and in-memory stores")
struct StoreContractTests {
    @Test("file store (DatabasePool, WAL)", arguments: DataStoreContract.checks)
    func fileStore(_ check: DataStoreContract.Check) throws {
        let directory = try TemporaryDirectory()
        try check.run { clock in
            try DefaultDataStoreFactory(.file(path: directory.path("trendy.sqlite")), clock: clock)
        }
    }

    @Test("in-memory store", arguments: DataStoreContract.checks)
    func inMemoryStore(_ check: DataStoreContract.Check) throws {
        try check.run { clock in try DefaultDataStoreFactory(.inMemory, clock: clock) }
    }
}
