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
    /// The admitted connections not yet authenticated, by channel; their number is what the second cap counts.
    private let pending = Mutex<Set<ObjectIdentifier>>([])

    init(maximumConnections: Int, maximumUnauthenticated: Int) {
        self.maximumConnections = maximumConnections
        self.maximumUnauthenticated = maximumUnauthenticated
    }

    /// Connections open now, and of them not yet authenticated.
    var counts: (open: Int, unauthenticated: Int) {
        (open.load(ordering: .relaxed), pending.withLock { $0.count })
    }

    /// Counts a new connection in; every call is matched by one `closed(_:)`.
    func opened(_ channel: ObjectIdentifier) -> Admission {
        let total = open.wrappingAdd(1, ordering: .relaxed).newValue
        return pending.withLock { pending in
            guard total <= maximumConnections, pending.count < maximumUnauthenticated else { return .overCapacity }
            pending.insert(channel)
            return .admitted
        }
    }

    /// The connection made an authenticated request: it no longer counts as unauthenticated.
    func authenticated(_ channel: ObjectIdentifier) {
        _ = pending.withLock { $0.remove(channel) }
    }

    func closed(_ channel: ObjectIdentifier) {
        open.wrappingSubtract(1, ordering: .relaxed)
        _ = pending.withLock { $0.remove(channel) }
    }
}
