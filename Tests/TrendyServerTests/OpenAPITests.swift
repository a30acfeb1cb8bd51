import Foundation
import Testing

@testable import TrendyServer

/// docs/openapi.yaml describes exactly what the router serves: the same paths and methods, and the
/// `Idempotency-Key` header on exactly the operations that honour it (api-v1 §7). schemathesis checks the rest of
/// the document against a live server in `make proof`.
@Suite("docs/openapi.yaml")
struct OpenAPITests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)) ?? ""
    }()

    /// One operation of the document's `paths`: "GET /api/v1/events/:id", in the router's spelling.
    struct Operation: Hashable, Comparable, CustomStringConvertible {
        let method: String
        let path: String
        var description: String { "\(method) \(path)" }
        static func < (a: Self, b: Self) -> Bool { a.description < b.description }
    }

    /// Reads the `paths` section: a path at two spaces' indent, its methods at four. Operations that list the
    /// IdempotencyKey parameter are returned apart.
    static func operations(_ yaml: String) -> (all: Set<Operation>, idempotent: Set<Operation>) {
        var all: Set<Operation> = []
        var idempotent: Set<Operation> = []
        var inPaths = false
        var path: String?
        var current: Operation?
        let methods = ["get", "post", "put", "delete", "patch", "head", "options"]
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /") && line.hasSuffix(":") {
                // `{id}` in OpenAPI is `:id` in the router.
                path = String(line.dropFirst(2).dropLast()).replacingOccurrences(of: "{", with: ":")
                    .replacingOccurrences(of: "}", with: "")
                current = nil
            } else if line.hasPrefix("    ") && !line.hasPrefix("     "), let path {
                let key = line.dropFirst(4).prefix { $0 != ":" }
                current = methods.contains(String(key)) ? Operation(method: key.uppercased(), path: path) : nil
                if let current { all.insert(current) }
            } else if let current, line.contains("#/components/parameters/IdempotencyKey") {
                idempotent.insert(current)
            }
        }
        return (all, idempotent)
    }

    static var routerOperations: Set<Operation> {
        Set(Routes.all.map { Operation(method: String(describing: $0.method), path: $0.path) })
            .union([
                Operation(method: "GET", path: "/health"), Operation(method: "GET", path: "/metrics"),
                Operation(method: "GET", path: Routes.changeStream),
            ])
    }

    @Test("the document's paths and methods are the router's, no more and no fewer")
    func sameOperations() {
        let documented = Self.operations(Self.document).all
        #expect(documented.count > 20, "docs/openapi.yaml was read: \(documented.count) operations")
        #expect(documented.subtracting(Self.routerOperations).sorted() == [], "documented but not routed")
        #expect(Self.routerOperations.subtracting(documented).sorted() == [], "routed but not documented")
    }

    @Test("Idempotency-Key is documented on exactly the routes that honour it (api-v1 §7)")
    func idempotencyKeyRoutes() {
        let honoured = Set(
            Routes.all.filter(\.takesIdempotencyKey).map {
                Operation(method: String(describing: $0.method), path: $0.path)
            })
        #expect(Self.operations(Self.document).idempotent == honoured)
    }

    @Test("the reader sees an added or a removed operation, so the comparison can fail")
    func readerSeesChanges() {
        let extra = Self.document.replacingOccurrences(
            of: "  /api/v1/changes/latest-cursor:\n",
            with: "  /api/v1/extra:\n    patch:\n      operationId: x\n"
                + "  /api/v1/changes/latest-cursor:\n")
        #expect(Self.operations(extra).all.contains(Operation(method: "PATCH", path: "/api/v1/extra")))
        let fewer = Self.document.replacingOccurrences(of: "    delete:\n      operationId: deleteEvent\n", with: "")
        #expect(!Self.operations(fewer).all.contains(Operation(method: "DELETE", path: "/api/v1/events/:id")))
        #expect(Self.operations(fewer).all.count == Self.operations(Self.document).all.count - 1)
    }
}
