import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 exchange over a plain TCP socket to 127.0.0.1: the request goes out byte for byte (no client
/// library to tidy a broken request line or header), the answer is read until the server closes.
public enum RawSocket {
    public enum Failure: Error, CustomStringConvertible {
        case connect(String)
        case timedOut(received: Int)

        public var description: String {
            switch self {
            case .connect(let reason): "cannot connect: \(reason)"
            case .timedOut(let received): "no end of the answer after the time limit (\(received) bytes read)"
            }
        }
    }

    /// Sends `request` and returns every byte the server sent before closing (empty: it closed without a word), or
    /// the first answer whole when the server keeps the connection (a request whose `Connection: close` was mutated
    /// away). The server may answer (413, 400) and close before reading everything: then the rest is not sent.
    public static func exchange(port: Int, _ request: [UInt8], timeoutSeconds: Int = 10) throws -> [UInt8] {
        let connection = try RawConnection(port: port, timeoutSeconds: timeoutSeconds)
        connection.send(request)
        return try connection.readAnswer()
    }

    /// A TCP socket connected to 127.0.0.1:`port`, whose reads and writes give up after `timeoutSeconds`.
    static func connected(port: Int, timeoutSeconds: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.connect(String(cString: strerror(errno))) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure.connect(reason)
        }
        return descriptor
    }

    /// The status code and body of an HTTP/1.1 answer, or nil when the bytes are not one.
    public static func parse(_ answer: [UInt8]) -> (status: Int, headers: [String: String], body: [UInt8])? {
        guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = head.first, statusLine.hasPrefix("HTTP/1."),
            let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (status, headers, Array(answer[end.upperBound...]))
    }
}
