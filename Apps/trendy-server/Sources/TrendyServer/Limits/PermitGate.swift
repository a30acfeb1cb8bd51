/// At most `permits` holders at a time; the others wait, in order, without blocking a thread. The server builds
/// large answers through one (`Pipeline`), so they never take every core from the requests beside them; tests start
/// child processes through one, a few at a time.
public actor PermitGate {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(permits: Int) { available = max(1, permits) }

    /// Runs `body` holding a permit.
    public func holding<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            // The permit passes straight to the first waiter.
            waiting.removeFirst().resume()
        }
    }
}
