/// At most `permits` holders at a time; the others wait without blocking a thread. Used to start child processes
/// a few at a time: a test run that launches twenty servers at once on two cores leaves no CPU for the in-process
/// servers beside them, whose requests then time out.
actor StartGate {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(permits: Int) { available = max(1, permits) }

    /// Runs `body` holding a permit.
    func holding<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
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
