import Dispatch
import Foundation

/// Grants the storage's writer connection to one unit of work at a time.
///
/// A `LocalStore` holds the lease from its first operation (`BEGIN IMMEDIATE`) until `save()` or rollback, so
/// no other store's statements can run inside its transaction. Waiting is bounded by the busy timeout, the same
/// bound SQLite applies to another process holding the file.
final class UnitOfWorkLease: Sendable {
    // DispatchSemaphore is thread-safe; it is the whole state of this type.
    private let semaphore = DispatchSemaphore(value: 1)
    let timeout: TimeInterval

    init(timeout: TimeInterval) {
        self.timeout = timeout
    }

    /// Blocks until the lease is free or the timeout passes; throws `DataStoreError.busy` then.
    func acquire() -> Bool {
        semaphore.wait(timeout: .now() + timeout) == .success
    }

    func release() {
        semaphore.signal()
    }
}
