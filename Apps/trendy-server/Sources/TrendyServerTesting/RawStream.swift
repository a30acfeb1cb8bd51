import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 answer read as it arrives over a plain TCP socket: for a streaming answer (the change stream), whose
/// bytes — comments and keep-alives included — a test reads up to a marker while the connection stays open.
public final class RawStream {
    private let descriptor: Int32
    /// Every byte received so far, head included.
    public private(set) var received: [UInt8] = []
    private var isClosed = false

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

    /// Reads until the received bytes contain `marker` (true), or the server closes first (false); throws
    /// `timedOut` when a read waits longer than the time limit.
    @discardableResult
    public func read(until marker: String) throws -> Bool {
        let needle = Array(marker.utf8)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while received.firstRange(of: needle) == nil {
            guard !isClosed else { return false }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                isClosed = true
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw RawSocket.Failure.timedOut(received: received.count)
            } else if errno != EINTR {
                isClosed = true
            }
        }
        return true
    }

    /// Reads until the server closes the connection.
    public func readToEnd() throws {
        _ = try read(until: "\u{0}never\u{0}")
    }

    /// What was received, as text.
    public var text: String { String(decoding: received, as: UTF8.self) }

    deinit { close(descriptor) }
}
