import Foundation
import Proofs
import Testing
import TrendyServerTesting

/// The short version of `make proof`'s fuzz part (docs/reliability.md): seeded mutations of Fixtures/api through
/// the client's parsers, and mutated requests to a trendy-server process.
@Suite("Fuzz proof (short)", .serialized)
struct FuzzProofTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("mutated API documents: every decoder refuses with a message or reads what it accepts consistently")
    func decoders() async throws {
        let fixtures = try DecoderFuzz.fixtures(root: Self.root)
        #expect(fixtures.count > 30, "Fixtures/api was found")
        let report = try await onOwnThread { DecoderFuzz.run(seed: 1, iterations: 40, fixtures: fixtures) }
        #expect(report.findings.map(\.description) == [])
        #expect(report.accepted > 0 && report.accepted < report.executions, "mutations both pass and fail")
    }

    @Test(
        "mutated requests: answers below 500 with problem bodies, refused writes change nothing, the server stays up",
        .timeLimit(.minutes(3)))
    func requests() async throws {
        let report = try await RequestFuzz.run(
            seed: 2, requests: 800, fixtures: try DecoderFuzz.fixtures(root: Self.root))
        #expect(report.findings == [])
        #expect(report.requests == 800)
        #expect((report.answers["4xx"] ?? 0) > 100 && (report.answers["2xx"] ?? 0) > 10, "\(report.answers)")
    }

    @Test("trendyctl import of mutated exports: exit 0 or 65 with a message; a refused file changes nothing")
    func imports() async throws {
        let report = try await ImportFuzz.run(seed: 3, files: 25)
        #expect(report.findings == [])
        #expect(report.refused > 5 && report.runs == 25, "mutations were refused: \(report.refused) of \(report.runs)")
    }

    @Test("the mutator changes documents, and one seed gives the same mutations")
    func mutatorIsSeeded() {
        let document = Array(#"{"a":[1,2,{"b":"c"}],"d":null}"#.utf8)
        var first = Mutator(seed: 7)
        var second = Mutator(seed: 7)
        let a = (0..<50).map { _ in first.mutate(document) }
        #expect(a == (0..<50).map { _ in second.mutate(document) })
        #expect(a.filter { $0 != document }.count > 40)
    }
}
