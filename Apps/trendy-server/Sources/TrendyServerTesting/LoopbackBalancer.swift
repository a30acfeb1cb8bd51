import NIOCore
import NIOPosix
import Synchronization

/// A TCP load balancer on 127.0.0.1 for multi-instance tests, in front of several `trendy-server` instances.
///
/// Each client gets a lane: a port of its own whose connections go to the backend the lane is routed to. A client
/// keeps one server root (sync-engine S18) while its requests reach different instances: `route(_:to:)` moves a
/// lane and closes the lane's open connections, as a balancer that drains a client does, so the next request opens
/// a connection to the other backend. Bytes are forwarded as they come, both ways, with backpressure.
public final class LoopbackBalancer: Sendable {
    public struct Lane: Sendable, Hashable {
        public let index: Int
        public let port: Int
    }

    private struct State {
        var routes: [Int] = []
        var listeners: [any Channel] = []
        var connections: [Int: [ObjectIdentifier: any Channel]] = [:]
        var forwarded: [Int]
        var closed = false
    }

    /// The backends' ports on 127.0.0.1.
    public let backends: [Int]
    private let state: Mutex<State>

    public init(backendPorts: [Int]) {
        backends = backendPorts
        state = Mutex(State(forwarded: backendPorts.map { _ in 0 }))
    }

    /// How many connections each backend has been given so far.
    public var connectionsForwarded: [Int] {
        state.withLock { $0.forwarded }
    }

    /// A new lane listening on a free port, routed to `backend` (an index into `backends`).
    public func addLane(routedTo backend: Int) async throws -> Lane {
        precondition(backends.indices.contains(backend), "no backend \(backend)")
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = listener.channel.localAddress?.port else {
            try? await listener.channel.close()
            throw BalancerError("the lane's listener has no port")
        }
        let index = state.withLock { state in
            state.routes.append(backend)
            state.listeners.append(listener.channel)
            return state.routes.count - 1
        }
        // Ends when `stop()` closes the listener and its connections.
        Task { await self.serve(listener, lane: index) }
        return Lane(index: index, port: port)
    }

    /// The backend `lane` is routed to now.
    public func backend(of lane: Lane) -> Int {
        state.withLock { $0.routes[lane.index] }
    }

    /// Routes `lane` to `backend` and closes the lane's open connections; returns when they are closed.
    public func route(_ lane: Lane, to backend: Int) async {
        precondition(backends.indices.contains(backend), "no backend \(backend)")
        let open = state.withLock { state in
            state.routes[lane.index] = backend
            return Array(state.connections[lane.index, default: [:]].values)
        }
        for channel in open { try? await channel.close() }
    }

    /// Closes every lane and connection without waiting (for `defer`s); the forwarding tasks end on their own.
    public func stop() {
        let channels = state.withLock { state in
            state.closed = true
            return state.listeners + state.connections.values.flatMap(\.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    private func serve(_ listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, lane: Int) async {
        try? await listener.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    group.addTask { await self.forward(connection, lane: lane) }
                }
            }
        }
    }

    private func forward(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, lane: Int) async {
        let key = ObjectIdentifier(client.channel)
        let backend: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.connections[lane, default: [:]][key] = client.channel
            state.forwarded[state.routes[lane]] += 1
            return state.routes[lane]
        }
        defer { _ = state.withLock { $0.connections[lane]?.removeValue(forKey: key) } }
        guard let backend else {
            try? await client.channel.close()
            return
        }
        do {
            let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: backends[backend]) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            try await client.executeThenClose { clientInbound, clientOutbound in
                try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
                    // Either side ending (a close, the backend's idle timeout, `route`) ends both.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await bytes in clientInbound { try await upstreamOutbound.write(bytes) }
                        }
                        group.addTask {
                            for try await bytes in upstreamInbound { try await clientOutbound.write(bytes) }
                        }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
            }
        } catch {
            // A refused backend or a reset: the client sees its connection close, as behind a real balancer.
            try? await client.channel.close()
        }
    }
}

public struct BalancerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
