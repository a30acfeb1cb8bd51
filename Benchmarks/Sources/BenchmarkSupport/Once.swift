/// A value made on first use and kept for the iterations after it: a benchmark closure runs once per iteration, and
/// what it works on (a database, a running server) must outlive one iteration. Benchmark closures run on one task at
/// a time, so this holder needs no lock and is not `Sendable`.
public final class Once<Value> {
    private var value: Value?
    private let make: () async throws -> Value

    public init(_ make: @escaping () async throws -> Value) { self.make = make }

    public func get() async throws -> Value {
        if let value { return value }
        let made = try await make()
        value = made
        return made
    }

    /// The value if it was made; for teardown.
    public var made: Value? { value }
}
