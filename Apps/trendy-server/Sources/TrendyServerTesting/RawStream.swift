import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 answer read as it arrives over a plain TCP socket: for a streaming answer (the change stream), whose
/// bytes — comments and keep-alives included — a test reads up to a marker while the connection stays open.
///
/// Each read blocks in `recv` on a thread of its own (`onOwnThread`), never on Swift's cooperative pool: on two cores
/// that pool has two threads, and two tests each blocked in a read there left the in-process server nothing to run
/// the stream on — both read nothing until their time limit (the PostgreSQL stall of docs/history/reliability.md).
public final class RawStream: Sendable {
    private struct State {
        var received: [UInt8] = []
        var isClosed = false
        /// The socket was closed by `drop`, not to be closed again.
        var dropped = false
    }

    private let descriptor: Int32
    private let state = Mutex(State())

    /// Connects to 127.0.0.1:`port` and sends `request`; each read gives up after `timeoutSeconds`.
    public init(port: Int, _ request: String, timeoutSeconds: Int = 10) throws {
        descriptor = try RawSocket.connected(port: port, timeoutSeconds: timeoutSeconds)
        let bytes = Array(request.utf8)
        let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else {
            close(descriptor)
            throw RawSocket.Failure.connect("the request could not be sent")
        }
    }

    /// Every byte received so far, head included.
    public var received: [UInt8] { state.withLock { $0.received } }

    /// What was received, as text.
    public var text: String { String(decoding: received, as: UTF8.self) }

    /// Reads until the received bytes contain `marker` (true), or the server closes first (false); throws
    /// `timedOut` when a read waits longer than the time limit.
    @discardableResult
    public func read(until marker: String) async throws -> Bool {
        try await onOwnThread { try self.readBlocking(until: Array(marker.utf8)) }
    }

    /// Reads until the server closes the connection.
    public func readToEnd() async throws {
        _ = try await read(until: "\u{0}never\u{0}")
    }

    private func readBlocking(until needle: [UInt8]) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let (found, closed) = state.withLock { ($0.received.firstRange(of: needle) != nil, $0.isClosed) }
            if found { return true }
            if closed { return false }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                state.withLock { $0.received.append(contentsOf: buffer[0..<count]) }
            } else if count == 0 || errno == ECONNRESET {
                state.withLock { $0.isClosed = true }
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw RawSocket.Failure.timedOut(received: received.count)
            } else if errno != EINTR {
                state.withLock { $0.isClosed = true }
            }
        }
    }

    /// Goes away as a client can: closes the socket, with a FIN, or with a reset (RST, `SO_LINGER` 0), as a client
    /// killed mid-transfer or a network dropping the connection does. Later reads find the stream closed.
    public func drop(reset: Bool) {
        state.withLock { state in
            guard !state.dropped else { return }
            if reset {
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            }
            close(descriptor)
            state.dropped = true
            state.isClosed = true
        }
    }

    deinit {
        if !state.withLock({ $0.dropped }) { close(descriptor) }
    }
}
