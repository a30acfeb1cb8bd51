import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to 127.0.0.1 held open by a test, for clients that misbehave over time: a head or a body sent a
/// byte at a time, a connection that sends nothing. Blocking calls: run them with `onOwnThread`.
public final class RawConnection: Sendable {
    private let descriptor: Int32

    /// Connects; reads give up after `timeoutSeconds` (a bound for the test, not a timing).
    public init(port: Int, timeoutSeconds: Int = 20) throws {
        descriptor = try RawSocket.connected(port: port, timeoutSeconds: timeoutSeconds)
    }

    deinit { close(descriptor) }

    /// Sends `bytes`; false when the server has closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads one answer (head and its `Content-Length` body), or whatever arrived before the server closed;
    /// throws when the time limit passes first.
    public func readAnswer() throws -> [UInt8] {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                answer.append(contentsOf: buffer[0..<count])
                if let parsed = RawSocket.parse(answer),
                    parsed.body.count >= parsed.headers["content-length"].flatMap({ Int($0) }) ?? 0
                {
                    return answer
                }
            } else if count == 0 || errno == ECONNRESET {
                return answer
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw RawSocket.Failure.timedOut(received: answer.count)
            } else if errno != EINTR {
                return answer
            }
        }
    }

    /// Waits until the server closes the connection (true), or the time limit passes (false). Bytes that arrive
    /// meanwhile are discarded.
    public func closedByServer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return true }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
        }
    }
}
