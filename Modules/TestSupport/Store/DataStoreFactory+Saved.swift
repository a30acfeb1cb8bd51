import Protocols

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
