import Foundation
import Models
import TrendyServerTesting

/// Mutated requests to a `trendy-server` process over raw sockets: bodies from Fixtures/api mutated, ids, query
/// strings and headers mangled, request lines broken, bodies huge or nested 100 000 deep. Every well-formed HTTP
/// request must get an answer below 500 (no faults are injected), every error a problem body whose `status` is
/// the answer's; a refused write must leave the change feed where it was (nothing half-written); the server must
/// stay up and its database pass `PRAGMA integrity_check`.
public enum RequestFuzz {
    public struct Report: Sendable {
        public var requests = 0
        /// Answers by class: "2xx", "4xx", "closed" (the connection ended without an answer to broken HTTP).
        public var answers: [String: Int] = [:]
        public var findings: [String] = []
    }

    /// One request template: a route of api-v1 with a valid body where it takes one.
    struct Template {
        let method: String
        let path: String
        let body: [UInt8]?
    }

    public static func run(
        seed: UInt64, requests: Int, fixtures: [(name: String, bytes: [UInt8])]
    ) async throws
        -> Report
    {
        let directory = try makeScratchDirectory("trendy-request-fuzz")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ProofServer.start(in: directory, faults: .none, seed: seed)
        defer { server.stop() }
        var run = Run(server: server, random: SeededRandom(seed: seed), mutator: Mutator(seed: seed))
        let templates = try await run.setUp(
            fixtures: Dictionary(uniqueKeysWithValues: fixtures.map { ($0.name, $0.bytes) }))
        for iteration in 0..<requests {
            guard let template = run.random.pick(templates) else { break }
            let (request, wellFormed, label) = run.mutate(template)
            if let finding = try await run.check(request, wellFormed: wellFormed, template: template) {
                run.report.findings.append(
                    "request \(iteration) (\(label)): \(finding)\n  request: "
                        + String(String(decoding: request.prefix(300), as: UTF8.self)))
                if finding.hasPrefix("the server is down") { break }
            }
            run.report.requests += 1
        }
        let integrity = try SQLiteFile(server.database).integrityCheck()
        if integrity != "ok" { run.report.findings.append("the server database fails integrity_check: \(integrity)") }
        return run.report
    }

    struct Run {
        let server: ProofServer
        var random: SeededRandom
        var mutator: Mutator
        var report = Report()

        /// Creates the entities the fixtures name, so that mutated requests reach the handlers, and returns the
        /// templates.
        func setUp(fixtures: [String: [UInt8]]) async throws -> [Template] {
            func fixture(_ name: String) throws -> [UInt8] {
                guard let bytes = fixtures[name] else { throw ProofError("Fixtures/api/\(name) is missing") }
                return bytes
            }
            func create(_ path: String, _ name: String) async throws -> String {
                let answer = try await send(request("POST", path, body: try fixture(name)))
                guard let parsed = RawSocket.parse(answer), parsed.status == 201,
                    let id = (try? JSONText.parse(parsed.body))?["id"]?.stringValue
                else {
                    throw ProofError(
                        "setting up: POST \(path) with \(name) failed: \(String(decoding: answer, as: UTF8.self))")
                }
                return id
            }
            let type = try await create("/api/v1/event-types", "request.create-event-type.json")
            let fence = try await create("/api/v1/geofences", "request.create-geofence.json")
            let definition = try await create(
                "/api/v1/event-types/\(type)/properties", "request.create-property-definition.json")
            let event = try await create("/api/v1/events", "request.create-event.json")
            return [
                Template(method: "GET", path: "/api/v1/event-types", body: nil),
                Template(
                    method: "POST", path: "/api/v1/event-types", body: try fixture("request.create-event-type.json")),
                Template(method: "GET", path: "/api/v1/event-types/\(type)", body: nil),
                Template(
                    method: "PUT", path: "/api/v1/event-types/\(type)",
                    body: try fixture("request.update-event-type.json")),
                Template(method: "DELETE", path: "/api/v1/event-types/\(type)", body: nil),
                Template(method: "GET", path: "/api/v1/event-types/\(type)/properties", body: nil),
                Template(
                    method: "POST", path: "/api/v1/event-types/\(type)/properties",
                    body: try fixture("request.create-property-definition.json")),
                Template(
                    method: "PUT", path: "/api/v1/property-definitions/\(definition)",
                    body: try fixture("request.update-property-definition.json")),
                Template(method: "DELETE", path: "/api/v1/property-definitions/\(definition)", body: nil),
                Template(method: "GET", path: "/api/v1/events?limit=50&offset=0", body: nil),
                Template(method: "POST", path: "/api/v1/events", body: try fixture("request.create-event.json")),
                Template(
                    method: "POST", path: "/api/v1/events", body: try fixture("request.create-event.minimal.json")),
                Template(method: "POST", path: "/api/v1/events/batch", body: try fixture("request.batch.json")),
                Template(method: "GET", path: "/api/v1/events/\(event)", body: nil),
                Template(
                    method: "PUT", path: "/api/v1/events/\(event)", body: try fixture("request.update-event.json")),
                Template(method: "DELETE", path: "/api/v1/events/\(event)", body: nil),
                Template(method: "GET", path: "/api/v1/geofences?active=true", body: nil),
                Template(method: "POST", path: "/api/v1/geofences", body: try fixture("request.create-geofence.json")),
                Template(
                    method: "PUT", path: "/api/v1/geofences/\(fence)", body: try fixture("request.update-geofence.json")
                ),
                Template(method: "DELETE", path: "/api/v1/geofences/\(fence)", body: nil),
                Template(method: "GET", path: "/api/v1/changes?since=0&limit=100", body: nil),
                Template(method: "GET", path: "/api/v1/changes/latest-cursor", body: nil),
            ]
        }

        func request(
            _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
            contentLength: Int? = nil
        ) -> [UInt8] {
            var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
            head += "Authorization: Bearer \(server.token)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if let body {
                head += "Content-Type: application/json\r\nContent-Length: \(contentLength ?? body.count)\r\n"
            }
            return Array((head + "\r\n").utf8) + (body ?? [])
        }

        func send(_ request: [UInt8]) async throws -> [UInt8] {
            let port = server.port
            return try await onOwnThread { try RawSocket.exchange(port: port, request) }
        }

        /// A mutated request, whether it is still well-formed HTTP, and what was done to it.
        mutating func mutate(_ template: Template) -> ([UInt8], Bool, String) {
            var path = template.path
            var body = template.body
            var headers: [(String, String)] = []
            if template.method != "GET" && template.method != "DELETE" && random.chance(0.7) {
                headers.append(("Idempotency-Key", "\(UUID())".lowercased()))
            }
            // A DELETE of the real id would only empty the data set: its ids are always mangled.
            let choice = template.method == "DELETE" ? 1 : Int.random(in: 0..<10, using: &random)
            switch choice {
            case 0...3 where body != nil:
                body = mutator.mutate(body ?? [])
                return (request(template.method, path, headers: headers, body: body), true, "body mutated")
            case 1:
                path = mangleId(path)
                return (request(template.method, path, headers: headers, body: body), true, "id mangled: \(path)")
            case 4:
                let query = [
                    "limit", "offset", "since", "active",
                ].map { "\($0)=\(random.pick(Self.queryValues) ?? "")" }.shuffled(using: &random).prefix(3)
                path = String(path.split(separator: "?").first ?? "") + "?" + query.joined(separator: "&")
                return (request(template.method, path, headers: headers, body: body), true, "query mangled")
            case 5 where body != nil && random.chance(0.3):
                // The body in well-formed chunks (and no Content-Length): the same answer as with one.
                var bytes = request(template.method, path, headers: headers + [("Transfer-Encoding", "chunked")])
                let payload = body ?? []
                let cut = Int.random(in: 0...payload.count, using: &random)
                for chunk in [payload[..<cut], payload[cut...]] where !chunk.isEmpty {
                    bytes += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
                }
                bytes += Array("0\r\n\r\n".utf8)
                return (bytes, true, "chunked body")
            case 5:
                let header = random.pick(Self.headerMutations) ?? ("X", "y")
                headers.append(header)
                // A DEL byte in a field value is not HTTP (RFC 9110 §5.5): the HTTP parser refuses it before us.
                return (
                    request(template.method, path, headers: headers, body: body), !header.1.contains("\u{7f}"),
                    "header \(header.0): \(header.1.prefix(20))"
                )
            case 6 where body != nil:
                // Content-Length shorter than the body: a truncated document, then garbage the server must not run.
                let length = Int.random(in: 0..<(body?.count ?? 1), using: &random)
                return (
                    request(template.method, path, headers: headers, body: body, contentLength: length), true,
                    "Content-Length \(length)"
                )
            case 7:
                var bytes = request(template.method, path, headers: headers, body: body)
                let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.lowerBound ?? bytes.count
                bytes.replaceSubrange(0..<end, with: mutator.mutate(Array(bytes[0..<end])))
                return (bytes, false, "request head mutated")
            case 8 where body != nil:
                let depth = Int.random(in: 1_000...100_000, using: &random)
                body =
                    Array(repeating: UInt8(ascii: "["), count: depth)
                    + Array(repeating: UInt8(ascii: "]"), count: depth)
                return (request(template.method, path, headers: headers, body: body), true, "nested \(depth) deep")
            case 9 where body != nil && random.chance(0.05):
                // Just over the 8 MiB limit (api-v1 §2.2): 413, never a half-read write.
                body = Array("{\"name\":\"".utf8) + Array(repeating: 0x61, count: 8 << 20) + Array("\"}".utf8)
                return (request(template.method, path, headers: headers, body: body), true, "9 MiB body")
            default:
                headers.append(
                    ("Idempotency-Key", random.pick(["", " ", "ä", String(repeating: "k", count: 256)]) ?? ""))
                return (request(template.method, path, headers: headers, body: body), true, "idempotency key")
            }
        }

        static let queryValues = [
            "", "-1", "0", "1", "500", "501", "1001", "abc", "1e3", "9223372036854775807", "9223372036854775808",
            "%00", "%2B1", "+1", "1.0", "true", "%ZZ", String(repeating: "9", count: 400),
        ]

        static let headerMutations: [(String, String)] = [
            ("Authorization", "Bearer"), ("Authorization", "bearer x"),
            ("Authorization", String(repeating: "A", count: 20_000)),
            ("Content-Type", "text/plain"), ("Content-Type", "application/json; charset=latin1"),
            ("X-Request-ID", String(repeating: "r", count: 500)), ("X-Request-ID", "a b"),
            ("Idempotency-Key", "\u{7f}"), ("Expect", "100-continue"), ("Content-Encoding", "gzip"),
        ]

        /// The path with its id replaced by a near miss.
        mutating func mangleId(_ path: String) -> String {
            var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard let index = parts.indices.last(where: { parts[$0].count == 36 }) ?? parts.indices.last else {
                return path
            }
            let id = parts[index]
            let variants = [
                id.uppercased(), "{\(id)}", "urn:uuid:\(id)", id.replacingOccurrences(of: "-", with: ""),
                String(id.dropLast()), id + "0", "00000000-0000-0000-0000-000000000000", "%00", "..", "%2e%2e",
                String(repeating: "f", count: 5000), "\(id)%20", UUID().uuidString.lowercased(), "ö",
            ]
            // Percent-encoded, so the request line stays valid HTTP and the mangled id reaches the router.
            let variant = random.pick(variants) ?? id
            parts[index] = variant.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? variant
            return parts.joined(separator: "/")
        }

        /// Sends the request and checks the answer; a finding, or nil.
        mutating func check(_ bytes: [UInt8], wellFormed: Bool, template: Template) async throws -> String? {
            let cursorBefore = template.method == "GET" ? nil : try await latestCursor()
            let answer: [UInt8]
            do {
                answer = try await send(bytes)
            } catch let failure as RawSocket.Failure {
                if case .connect = failure { return "the server is down: \(failure)" }
                return "a hang: \(failure)"
            }
            guard let (status, headers, body) = RawSocket.parse(answer) else {
                if wellFormed { return "no HTTP answer to a well-formed request (\(answer.count) bytes)" }
                report.answers["closed", default: 0] += 1
                return nil
            }
            report.answers["\(status / 100)xx", default: 0] += 1
            if status >= 500 { return "answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))" }
            if status >= 400 && wellFormed {
                guard headers["content-type"]?.hasPrefix("application/problem+json") == true,
                    let problem = try? JSONText.parse(body), problem["status"]?.intValue == status,
                    problem["type"]?.stringValue?.hasPrefix("urn:trendy:error:") == true,
                    problem["detail"]?.stringValue?.isEmpty == false
                else { return "\(status) without a problem body: \(String(decoding: body.prefix(300), as: UTF8.self))" }
            }
            if let cursorBefore, status >= 400 {
                let after = try await latestCursor()
                if after != cursorBefore {
                    return "a refused write (\(status)) moved the change feed \(cursorBefore) → \(after)"
                }
            }
            return nil
        }

        func latestCursor() async throws -> Int64 {
            let answer = try await send(request("GET", "/api/v1/changes/latest-cursor"))
            guard let parsed = RawSocket.parse(answer), parsed.status == 200,
                let cursor = (try? JSONText.parse(parsed.body))?["cursor"]?.intValue.map(Int64.init)
            else { throw ProofError("latest-cursor failed: \(String(decoding: answer.prefix(300), as: UTF8.self))") }
            return cursor
        }
    }
}
