import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Models

/// A throwaway HTTP server on 127.0.0.1 whose every answer comes from a closure: for client tests that need
/// answers trendy-server never gives (captive-portal HTML, HTTP-date `Retry-After`, shifting pages).
public final class StubHTTPServer: Sendable {
    public struct Request: Sendable {
        public let method: String
        public let path: String
        public let query: [String: String]
        public let headers: [String: String]
    }

    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        public init(status: Int, headers: [String: String] = [:], body: String = "") {
            self.status = status
            self.headers = headers
            self.body = Data(body.utf8)
        }
    }

    public typealias Handler = @Sendable (Request) async -> Reply

    public let root: ServerRoot
    private let task: Task<Void, any Error>

    private init(root: ServerRoot, task: Task<Void, any Error>) {
        self.root = root
        self.task = task
    }

    /// Serves `handler` while `body` runs.
    @discardableResult
    public static func with<Result>(
        _ handler: @escaping Handler, _ body: (StubHTTPServer) async throws -> Result
    ) async throws -> Result {
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put, .delete] {
            router.on("**", method: method) { request, _ in
                var headers: [String: String] = [:]
                for field in request.headers { headers[field.name.canonicalName] = field.value }
                var query: [String: String] = [:]
                for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
                let reply = await handler(
                    Request(method: method.rawValue, path: request.uri.path, query: query, headers: headers))
                var fields = HTTPFields()
                for (name, value) in reply.headers {
                    if let name = HTTPField.Name(name) { fields[name] = value }
                }
                return Response(
                    status: .init(code: reply.status), headers: fields,
                    body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
            }
        }
        let (urls, continuation) = AsyncStream<String>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield("http://127.0.0.1:\(channel.localAddress?.port ?? 0)") },
            logger: LiveTrendyServer.testLogger(label: "stub-http-server"))
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var server: StubHTTPServer?
        for await url in urls {
            server = ServerRoot(url).map { StubHTTPServer(root: $0, task: task) }
            break
        }
        guard let server else {
            task.cancel()
            throw LiveTrendyServer.StartError.didNotListen
        }
        return try await stopping(server, after: body) { await $0.stop() }
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
