import NIOCore
import Synchronization

/// The connections the server holds (docs/security.md): at most `--max-connections` in all, of which at most
/// `--max-unauthenticated-connections` have not yet made an authenticated request. A connection beyond either cap
/// is still answered once — `/health` and `/metrics` normally, anything else 503 — and then closed, so monitoring
/// keeps working while slow or hostile clients fill the server, and they cannot hold more than the caps.
final class ConnectionLimits: Sendable {
    /// How a new connection is admitted.
    enum Admission: Equatable {
        case admitted
        /// Over a cap: one answer, then closed.
        case overCapacity
    }

    let maximumConnections: Int
    let maximumUnauthenticated: Int
    private let open = Atomic<Int>(0)
    private let unauthenticated = Atomic<Int>(0)
    /// The admitted connections not yet authenticated, by channel.
    private let pending = Mutex<Set<ObjectIdentifier>>([])

    init(maximumConnections: Int, maximumUnauthenticated: Int) {
        self.maximumConnections = maximumConnections
        self.maximumUnauthenticated = maximumUnauthenticated
    }

    /// Connections open now, and of them not yet authenticated.
    var counts: (open: Int, unauthenticated: Int) {
        (open.load(ordering: .relaxed), unauthenticated.load(ordering: .relaxed))
    }

    /// Counts a new connection in; every call is matched by one `closed(_:admission:)`.
    func opened(_ channel: ObjectIdentifier) -> Admission {
        let total = open.wrappingAdd(1, ordering: .relaxed).newValue
        let waiting = unauthenticated.wrappingAdd(1, ordering: .relaxed).newValue
        guard total <= maximumConnections, waiting <= maximumUnauthenticated else {
            unauthenticated.wrappingSubtract(1, ordering: .relaxed)
            return .overCapacity
        }
        pending.withLock { _ = $0.insert(channel) }
        return .admitted
    }

    /// The connection made an authenticated request: it no longer counts as unauthenticated.
    func authenticated(_ channel: ObjectIdentifier) {
        guard pending.withLock({ $0.remove(channel) }) != nil else { return }
        unauthenticated.wrappingSubtract(1, ordering: .relaxed)
    }

    func closed(_ channel: ObjectIdentifier, admission: Admission) {
        open.wrappingSubtract(1, ordering: .relaxed)
        if admission == .admitted, pending.withLock({ $0.remove(channel) }) != nil {
            unauthenticated.wrappingSubtract(1, ordering: .relaxed)
        }
    }
}
