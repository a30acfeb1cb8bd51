/// Makes units of work (sync-engine §2.6). `Sendable`, so it can be handed to the `SyncEngine` actor, which
/// calls it for every logical step and never keeps a store across a network `await`.
public protocol DataStoreFactory: Sendable {
    /// A fresh unit of work on a connection no other live store is using.
    func makeDataStore() -> any DataStoreProtocol
}
