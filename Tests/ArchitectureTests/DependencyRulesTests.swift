import Foundation
import Subprocess
import Testing

/// The module graph is the architecture (docs/architecture.md). These tests fail on any forbidden edge, in the
/// package description and in the `import`s of the module sources, so the DI boundary is enforced by the build
/// and not by good intentions.
@Suite("Dependency rules")
struct DependencyRulesTests {
    /// The only dependencies each layer may declare (targets and products). swift-log is allowed everywhere.
    static let allowedDependencies: [String: Set<String>] = [
        "Models": ["Logging"],
        "Protocols": ["Models", "Logging"],
        "Persistence": ["Models", "Protocols", "GRDB", "GRDBSQLite", "Logging"],
        "Networking": ["Models", "Protocols", "Logging", "AsyncHTTPClient", "NIOCore", "NIOHTTP1"],
        "Sync": ["Models", "Protocols", "Logging"],
        "Hashing": ["Protocols", "Crypto", "Logging"],
        "TestSupport": ["Models", "Protocols", "Sync", "Persistence", "Hashing", "Logging"],
        "TestSupportContracts": ["Models", "Protocols", "TestSupport", "Logging"],
    ]

    /// Toolchain modules every layer may import, besides its declared dependencies.
    static let systemModules: Set<String> = ["Foundation", "Dispatch", "Synchronization", "Glibc", "Musl", "Darwin"]

    /// Extra toolchain modules particular layers need.
    static let extraImports: [String: Set<String>] = [
        "Networking": ["FoundationNetworking"],
        "TestSupportContracts": ["Testing"],
    ]

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    @Test("every layer declares only the dependencies its rule allows")
    func declaredDependencies() async throws {
        let targets = try await PackageDescriptionReader.targets(at: Self.packageRoot)
        for (layer, allowed) in Self.allowedDependencies {
            let declared = try #require(targets[layer], "layer \(layer) is missing from Package.swift")
            let forbidden = declared.subtracting(allowed)
            #expect(forbidden.isEmpty, "\(layer) must not depend on \(forbidden.sorted())")
        }
    }

    @Test("Sync depends on Protocols and Models only: never on Persistence, Networking or GRDB")
    func syncBoundary() async throws {
        let targets = try await PackageDescriptionReader.targets(at: Self.packageRoot)
        let sync = try #require(targets["Sync"])
        #expect(sync.isSubset(of: ["Models", "Protocols", "Logging"]))
    }

    @Test("the shipped binaries link no test code: tests hand trendyctl its mock as a .custom client")
    func shippedBinariesLinkNoTestCode() async throws {
        let targets = try await PackageDescriptionReader.targets(at: Self.packageRoot)
        let testCode: Set<String> = ["TestSupport", "TestSupportContracts", "TrendyServerTesting", "Testing"]
        for shipped in ["TrendyCLI", "trendyctl", "TrendyServer", "trendy-server"] {
            let declared = try #require(targets[shipped], "\(shipped) is missing from Package.swift")
            #expect(
                declared.isDisjoint(with: testCode), "\(shipped) must not depend on \(declared.intersection(testCode))")
        }
    }

    @Test("module sources import only what their layer allows", arguments: allowedDependencies.keys.sorted())
    func sourceImports(layer: String) throws {
        let allowed = (Self.allowedDependencies[layer] ?? []).union(Self.systemModules)
            .union(Self.extraImports[layer] ?? [])
        let (files, imports) = try SourceImports.scan(Self.packageRoot.appendingPathComponent("Modules/\(layer)"))
        #expect(files > 0, "no Swift sources found for \(layer)")
        for (file, module) in imports where !allowed.contains(module) {
            Issue.record("\(file) imports \(module), which \(layer) may not use")
        }
    }

    @Test("trendy-server: only a storage backend imports a database engine; routes see ServerStorage alone")
    func serverStorageBoundary() throws {
        let server = Self.packageRoot.appendingPathComponent("Apps/trendy-server/Sources/TrendyServer")
        let engines: Set<String> = ["GRDB", "GRDBSQLite", "PostgresNIO"]
        let (files, imports) = try SourceImports.scan(server)
        // Each backend lives in a folder of its own under Storage/ (SQLite/, …).
        let storage = server.appendingPathComponent("Storage")
        var backend: Set<String> = []
        for folder in try FileManager.default.contentsOfDirectory(at: storage, includingPropertiesForKeys: nil)
        where folder.hasDirectoryPath {
            backend.formUnion(try SourceImports.scan(folder).imports.map(\.file))
        }
        #expect(files > backend.count && backend.contains("SQLiteStorage.swift"))
        for (file, module) in imports where engines.contains(module) && !backend.contains(file) {
            Issue.record("\(file) imports \(module): only Storage/<backend>/ may; handlers use StorageTransaction")
        }
    }

    @Test("the import scanner sees every import form a bypass could use")
    func scannerCatchesBypasses() {
        let source = """
            import Foundation
            @testable import Persistence
            @_implementationOnly import GRDB
            public import Networking
            internal import struct Persistence.LocalStore
            // import Commented
            let text = "import NotCode"
            """
        #expect(
            SourceImports.modules(in: source) == ["Foundation", "Persistence", "GRDB", "Networking", "Persistence"])
    }
}

/// Reads target dependencies from `swift package dump-package`.
enum PackageDescriptionReader {
    static func targets(at root: URL) async throws -> [String: Set<String>] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A separate scratch path: the running `swift test` holds the lock on .build.
        let dump = try await Subprocess.run(
            .name("swift"),
            arguments: ["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"],
            output: .bytes(limit: 16 << 20))
        guard case .exited(0) = dump.terminationStatus,
            let json = try JSONSerialization.jsonObject(with: Data(dump.standardOutput)) as? [String: Any],
            let targets = json["targets"] as? [[String: Any]]
        else { throw DumpError.unreadable(status: dump.terminationStatus.description) }
        var result: [String: Set<String>] = [:]
        for target in targets {
            guard let name = target["name"] as? String else { continue }
            let dependencies = (target["dependencies"] as? [[String: Any]]) ?? []
            result[name] = Set(
                dependencies.compactMap { dependency in
                    dependency.values.compactMap { ($0 as? [Any])?.first as? String }.first
                })
        }
        return result
    }

    enum DumpError: Error {
        case unreadable(status: String)
    }
}

/// Finds `import` declarations in Swift sources.
enum SourceImports {
    static func scan(_ directory: URL) throws -> (files: Int, imports: [(file: String, module: String)]) {
        var files = 0
        var found: [(String, String)] = []
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            files += 1
            let source = try String(contentsOf: url, encoding: .utf8)
            for module in modules(in: source) { found.append((url.lastPathComponent, module)) }
        }
        return (files, found)
    }

    static func modules(in source: String) -> [String] {
        source.split(separator: "\n").compactMap { line -> String? in
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            while let first = words.first,
                first.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains(first)
            {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { return nil }
            let kinds: Set<String> = [
                "struct", "class", "enum", "protocol", "func", "var", "let", "typealias", "actor",
            ]
            let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            return String(path.split(separator: ".").first ?? "")
        }
    }
}
