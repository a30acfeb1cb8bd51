import Foundation
import Testing
import TrendyServerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The README's tour of trendyctl, pasted as it is into bash on a "fresh machine" (an empty
/// home, the built binaries on PATH), runs to the end, every line succeeding.
@Suite("README tour")
struct ReadmeTourTests {
    /// The first ```sh block after `## A tour of trendyctl`.
    static func tour() throws -> String {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## A tour of trendyctl"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("the tour runs as written on an empty home, every line exiting 0")
    func tourRuns() async throws {
        let port = try Self.freePort()
        var lines = try Self.tour().replacingOccurrences(of: "8080", with: "\(port)").split(separator: "\n").map(
            String.init)
        // A person pastes the next line after the server's first; a script waits for it.
        let serverLine = try #require(lines.firstIndex { $0.hasPrefix("trendy-server ") })
        lines.insert(
            "for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/\(port)) 2>/dev/null && break; sleep 0.1; done",
            at: serverLine + 1)
        let script = "set -euo pipefail\n" + lines.joined(separator: "\n") + "\n"
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let products = ServerProcess.productsDirectory.path
        let result = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                "HOME": home.path, "TZ": "UTC",
                "PATH": products + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ], currentDirectory: home)
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stdout.contains("cortado"), "the edit of the captured id took: \(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("backup.json").path))
    }
}
