/// Observing local data (sync-engine R13): a query over the local store, yielded again after every committed
/// transaction that changes its result.
///
/// The query runs in a unit of work of its own that is never saved, so it must only read. A commit in this process
/// is seen at once (within 16 ms); a commit by another process on the same database within 100 ms. Equal
/// consecutive results are yielded once. The sequence ends when its consumer stops, or throws the query's error.
public protocol LocalDataObserving: Sendable {
    /// The results of `query`: its first at once, then one after every committed change that alters it.
    func observe<Value: Sendable & Equatable>(
        _ query: @escaping @Sendable (any DataStoreProtocol) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error>
}
