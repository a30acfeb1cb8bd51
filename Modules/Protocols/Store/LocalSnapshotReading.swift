/// Reading one consistent snapshot of local data: an export's lists that agree with each other, pages of a long
/// listing that neither repeat nor miss a row another writer moved meanwhile.
///
/// `body` gets a store that only reads. Every read sees the data as it stood at the first one, whatever other units
/// of work (this process's or another's) commit meanwhile; on a database file they do not wait for it. The store is for
/// reading: a write through it throws or is rolled back, and changes nothing. It must not outlive `body`.
public protocol LocalSnapshotReading: Sendable {
    /// Runs `body` on a read-only store that sees one snapshot of the data, and returns what it returns.
    func readSnapshot<Value>(_ body: (any DataStoreProtocol) throws -> Value) throws -> Value
}
