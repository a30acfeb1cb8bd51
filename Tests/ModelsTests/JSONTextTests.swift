import Foundation
import Models
import Testing

@Suite("JSON text")
struct JSONTextTests {
    @Test("writes canonical text identical to JSONCoding for the same value", arguments: FixtureFiles.names)
    func matchesFoundation(name: String) throws {
        let value = try JSONCoding.decode(JSONValue.self, from: try FixtureFiles.data(name))
        let foundation = String(decoding: try JSONCoding.encode(value), as: UTF8.self)
        #expect(JSONText.string(value) == foundation)
    }

    @Test("parses what it writes, and what Foundation reads", arguments: FixtureFiles.names)
    func roundTrips(name: String) throws {
        let data = try FixtureFiles.data(name)
        let parsed = try JSONText.parse(Array(data))
        #expect(parsed == (try JSONCoding.decode(JSONValue.self, from: data)))
        #expect(try JSONText.parse(JSONText.string(parsed)) == parsed)
    }

    @Test("escapes quotes, backslashes and control characters; keeps slashes and non-ASCII")
    func escaping() throws {
        let value = JSONValue.string("a\"b\\c/d\u{1}\n\té")
        #expect(JSONText.string(value) == #""a\"b\\c/d\u0001\n\té""#)
        #expect(try JSONText.parse(JSONText.string(value)) == value)
        #expect(try JSONText.parse(#""\ud83d\ude00 \u00e9""#) == .string("😀 é"))
    }

    @Test("numbers: integral values without a fraction, others round-trip exactly")
    func numbers() throws {
        #expect(JSONText.string([1, 2.5, -0.125, 1e21, 100.0]) == "[1,2.5,-0.125,1e+21,100]")
        for number in [0.1, 1.0 / 3.0, 123_456_789.123, -Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude] {
            #expect(try JSONText.parse(JSONText.string(.number(number))) == .number(number))
        }
    }

    @Test(
        "rejects malformed input with an offset",
        arguments: [
            "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "tru", "01", "1.", "-", "\"abc", "\"\\x\"", "[1] 2",
            "\"\u{1}\"", "\"\\ud800\"", "1e999", "{\"a\":}", "NaN",
        ])
    func rejects(text: String) {
        #expect(throws: JSONParseError.self) { try JSONText.parse(text) }
    }

    @Test("deeply nested input is refused instead of exhausting the stack")
    func nestingLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONText.parse(deep) }
    }
}
