import Synchronization

/// Holds calls in flight until released, so a test can act while a request is "on the wire" (sync-engine §2.9).
public final class CallGate: Sendable {
    private struct Held {
        let id: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var isOpen = false
        var held: [Held] = []
        var nextId = 0
        var arrivals = 0
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// Calls that reached the gate so far.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Suspends until at least `count` calls have reached the gate.
    public func waitForArrivals(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.arrivals >= count { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets every held call and every later call through.
    public func release() {
        let held = state.withLock { state -> [Held] in
            state.isOpen = true
            defer { state.held = [] }
            return state.held
        }
        for call in held { call.continuation.resume(returning: true) }
    }

    /// Waits at the gate; false when the calling task was cancelled while held.
    public func pass() async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (passNow, ready) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    state.arrivals += 1
                    let ready = state.arrivalWaiters.filter { $0.count <= state.arrivals }.map(\.continuation)
                    state.arrivalWaiters.removeAll { $0.count <= state.arrivals }
                    if state.isOpen { return (true, ready) }
                    if Task.isCancelled { return (false, ready) }
                    state.held.append(Held(id: id, continuation: continuation))
                    return (nil, ready)
                }
                for waiter in ready { waiter.resume() }
                if let passNow { continuation.resume(returning: passNow) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Held? in
                guard let index = state.held.firstIndex(where: { $0.id == id }) else { return nil }
                return state.held.remove(at: index)
            }
            cancelled?.continuation.resume(returning: false)
        }
    }
}
