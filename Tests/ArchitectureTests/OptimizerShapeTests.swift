import Foundation
import Subprocess
import Testing

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// The optimizer defect of docs/reliability.md ("Optimizer defects and their shapes"): Swift 6.3.1 at `-O`
/// miscompiles a task group whose child result is a tuple of an index and a `Result` holding an existential error.
/// The read-back had that shape, and the release build wrote server answers over the wrong rows.
///
/// These tests keep the shape out of every source of this repository, and compile both the shape and its
/// workaround optimized with the toolchain that runs them, so that a new toolchain re-checks what is recorded.
@Suite("Optimizer shapes")
struct OptimizerShapeTests {
    static let fixtures = DependencyRulesTests.packageRoot.appendingPathComponent("Fixtures/optimizer")

    /// Every task group of these folders, with the type its children return.
    static func taskGroups() throws -> [(file: String, childResult: String)] {
        var found: [(file: String, childResult: String)] = []
        for folder in ["Modules", "Apps", "Tests", "Benchmarks"] {
            let root = DependencyRulesTests.packageRoot.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                // This file names the shape on purpose, in the scan's own test.
                guard url.pathExtension == "swift", !url.path.contains("/.build"),
                    url.lastPathComponent != "OptimizerShapeTests.swift"
                else { continue }
                let text = try String(contentsOf: url, encoding: .utf8)
                for childResult in Self.childResults(in: text) {
                    found.append((url.lastPathComponent, childResult))
                }
            }
        }
        return found
    }

    /// The `of:` argument of every `with…TaskGroup(of: …)` call in `text`, whitespace collapsed.
    static func childResults(in text: String) -> [String] {
        let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var results: [String] = []
        var rest = collapsed[...]
        while let call = rest.range(of: "TaskGroup(") {
            rest = rest[call.upperBound...].drop { $0 == " " }
            guard rest.hasPrefix("of:") else { continue }
            rest = rest.dropFirst(3).drop { $0 == " " }
            var depth = 0
            var end = rest.startIndex
            while end < rest.endIndex {
                let character = rest[end]
                if character == "(" || character == "<" || character == "[" { depth += 1 }
                if character == ")" || character == ">" || character == "]" { depth -= 1 }
                if depth == 0 && character == "." { break }
                end = rest.index(after: end)
            }
            results.append(String(rest[..<end]))
            rest = rest[end...]
        }
        return results
    }

    @Test("no task group's child result is a tuple: children return a named struct")
    func noTupleChildResults() throws {
        let groups = try Self.taskGroups()
        // The scan sees the read-back's own group, so a change of spelling cannot make this pass vacuously.
        #expect(groups.contains { $0.file == "SyncEngine+ReadBack.swift" && $0.childResult == "ReadBackAnswer" })
        for group in groups where group.childResult.hasPrefix("(") {
            let advice = "return a struct instead (docs/reliability.md, \"Optimizer defects and their shapes\")"
            Issue.record("\(group.file): a task group returns the tuple \(group.childResult); \(advice)")
        }
    }

    @Test("the scan reads a tuple child result however it is spelled")
    func scanFindsTuples() {
        let text = """
            await withTaskGroup(
                of: (Int, Result<APIEntity?, any Error>).self) { group in }
            try await withThrowingTaskGroup(of: [Reading].self) { _ in }
            """
        #expect(Self.childResults(in: text) == ["(Int, Result<APIEntity?, any Error>)", "[Reading]"])
    }

    @Test("the workaround shape, a struct child result, is correct when compiled with -O")
    func structShapeOptimized() async throws {
        let run = try await Self.compileAndRun("struct-child-result.swift")
        #expect(run.status == .exited(0) && run.output == "correct", "\(run)")
    }

    @Test("the defect's shape, a tuple child result, compiled with -O: still broken on Swift 6.3")
    func tupleShapeOptimized() async throws {
        let run = try await Self.compileAndRun("tuple-child-result.swift")
        let broken = run.status != .exited(0) || run.output != "correct"
        #if compiler(>=6.3) && compiler(<6.4)
            // Recorded for 6.3.1. When a 6.3 release fixes it, this known issue goes unrecorded and the test
            // fails: note the version in docs/reliability.md; the struct shape stays (it is the clearer code).
            withKnownIssue("Swift 6.3 at -O miscompiles a tuple child result (docs/reliability.md)") {
                #expect(!broken, "\(run)")
            }
        #else
            // Another toolchain: what it does is reported, and recorded in docs/reliability.md by hand.
            withKnownIssue("a tuple child result at -O on this toolchain", isIntermittent: true) {
                #expect(!broken, "\(run)")
            }
        #endif
    }

    struct Run: CustomStringConvertible {
        let status: TerminationStatus
        let output: String
        var description: String { "\(status): \(output)" }
    }

    /// Compiles `fixture` with `swiftc -O` into a temporary folder and runs it (no backtrace on a crash).
    static func compileAndRun(_ fixture: String) async throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-shape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = folder.appendingPathComponent("shape")
        let compiled = try await Subprocess.run(
            .name("swiftc"),
            arguments: [
                "-parse-as-library", "-O", "-swift-version", "6",
                fixtures.appendingPathComponent(fixture).path, "-o", binary.path,
            ],
            output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
        guard case .exited(0) = compiled.terminationStatus else {
            throw CompileError(message: "swiftc -O \(fixture): \(compiled.standardError)")
        }
        let ran = try await Subprocess.run(
            .path(FilePath(binary.path)), environment: .inherit.updating(["SWIFT_BACKTRACE": "enable=no"]),
            output: .string(limit: 1 << 16), error: .discarded)
        return Run(
            status: ran.terminationStatus,
            output: ran.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    struct CompileError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
