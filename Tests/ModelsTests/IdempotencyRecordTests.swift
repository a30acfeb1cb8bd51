import Models
import Testing

/// The replay rule of api-v1 §7, as trendy-server and the in-memory server both apply it.
@Suite("Idempotency records")
struct IdempotencyRecordTests {
    /// A stand-in digest that shows what was hashed.
    static func hexDigest(_ bytes: [UInt8]) -> String { "digest of " + String(decoding: bytes, as: UTF8.self) }

    @Test(
        "api-v1 §7 a body's fingerprint is that of its canonical JSON: a re-send spelled otherwise is the same request")
    func canonicalFingerprint() {
        let first = IdempotencyRecord<Int>.fingerprint(
            of: Array(#"{"b": 1, "a": [true, null]}"#.utf8), hexDigest: Self.hexDigest)
        let second = IdempotencyRecord<Int>.fingerprint(
            of: Array(#"{"a":[true,null],"b":1}"#.utf8), hexDigest: Self.hexDigest)
        #expect(first.fingerprint == #"digest of {"a":[true,null],"b":1}"#)
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.json == second.json && first.json != nil)
        // Not JSON: its bytes as they came, and nothing parsed.
        let raw = IdempotencyRecord<Int>.fingerprint(of: Array("a=1".utf8), hexDigest: Self.hexDigest)
        #expect(raw.fingerprint == "digest of a=1" && raw.json == nil)
    }

    @Test("api-v1 §7 a re-send with the same body replays the stored answer; another body gets none (422)")
    func replaysOnlyTheSameBody() {
        let record = IdempotencyRecord(fingerprint: "f1", answer: 201)
        #expect(record.replay(forBodyWith: "f1") == 201)
        #expect(record.replay(forBodyWith: "f2") == nil)
    }
}
