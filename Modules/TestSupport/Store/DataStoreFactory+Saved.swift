import Protocols

/// A test's own units of work, beside the code under test.
extension DataStoreFactory {
    /// Runs `body` on a fresh store, one unit of work, and commits it: a test's own write, or read, beside whatever
    /// else uses the database.
    @discardableResult
    public func saved<T>(_ body: (any DataStoreProtocol) throws -> T) throws -> T {
        let store = makeDataStore()
        let result = try body(store)
        try store.save()
        return result
    }
}
