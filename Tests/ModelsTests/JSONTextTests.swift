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

    @Test("a shared member reads as without sharing: repeats, other texts, other depths, and the depth limit")
    func sharedMembers() throws {
        let shared = #"{"id":"T","name":"Tea","tags":[1,{"a":null}]}"#
        let documents = [
            #"[{"t":\#(shared)},{"t":\#(shared)},{"t":{"id":"U"}},{"t":\#(shared)},{"x":{"t":\#(shared)}}]"#,
            // The same text again, then a longer text that begins with it: not a repeat.
            #"[{"t":{"id":"T"}},{"t":{"id":"T"}, "u":1},{"t":{"id":"T"}}]"#,
            #"[{"t":"text"},{"t":"text"},{"t":5},{"t":null},{"t":null}]"#,
        ]
        for text in documents {
            #expect(try JSONText.parse(Array(text.utf8), sharing: "t") == JSONText.parse(Array(text.utf8)), "\(text)")
        }
        // A text read at one depth is not reused at a deeper one, where it would pass the depth limit.
        let inner = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let deep =
            "[{\"t\":\(inner)}," + String(repeating: "[", count: 20) + "{\"t\":\(inner)}"
            + String(repeating: "]", count: 20) + "]"
        #expect(throws: JSONParseError.self) { try JSONText.parse(Array(deep.utf8), sharing: "t") }
        #expect(throws: JSONParseError.self) { try JSONText.parse(Array(deep.utf8)) }
    }

    @Test("a repeated key keeps its first value, as JSONDecoder does, so the change feed's two paths agree")
    func repeatedKeys() throws {
        // Found by the decoder fuzzer (docs/history/reliability.md): JSONText kept the last value, JSONDecoder the first.
        let page = Array(
            #"{"changes":[],"next_cursor":7,"next_cursor":9,"has_more":true,"has_more":false}"#.utf8)
        #expect(try JSONText.parse(page)["next_cursor"] == .number(7), "the first value wins")
        let fast = try ChangeFeedResponse(jsonBytes: page)
        #expect(fast == (try JSONCoding.decode(ChangeFeedResponse.self, from: Data(page))), "both paths read it alike")
        #expect(fast.nextCursor == 7 && fast.hasMore)
    }

    @Test("change feed cursors and ids beyond 2^53 are read exactly by the fast path (api-v1 §3.3: int64)")
    func largeCursors() throws {
        // Found by the decoder fuzzer: 9223372036854775807 was refused, and 2^53 + 1 would have been rounded.
        let page = Array(
            (#"{"changes":[{"id":9223372036854775807,"entity_type":"event","operation":"delete","#
                + #""entity_id":"0190f5c0-3f00-7a11-8b22-000000000064","user_id":"u","data":null}],"#
                + #""next_cursor":9007199254740993,"has_more":false}"#).utf8)
        let fast = try ChangeFeedResponse(jsonBytes: page)
        #expect(fast.nextCursor == 9_007_199_254_740_993, "not rounded to 2^53")
        #expect(fast.changes.first?.id == Int64.max)
        #expect(fast == (try JSONCoding.decode(ChangeFeedResponse.self, from: Data(page))))
    }

    @Test("a non-zero number below a Double's range is refused like JSONDecoder does, not read as 0")
    func underflow() throws {
        // Found by the decoder fuzzer: `"notes": -1e-999` was 0 on the fast path and refused by JSONDecoder.
        #expect(throws: JSONParseError.self) { try JSONText.parse("[-1e-999]") }
        #expect(throws: (any Error).self) { try JSONCoding.decode([Double].self, from: Data("[-1e-999]".utf8)) }
        #expect(try JSONText.parse("[0e-999, 0.000, -0]") == [0, 0, 0], "zero itself stays valid")
    }

    @Test("JSONCoding refuses nesting past 512 levels instead of letting JSONDecoder trap on it")
    func deepNestingDoesNotCrashTheDecoder() throws {
        // Found by libFuzzer: 600 "[" then "x", on one line, crashed the process inside JSONDecoder.
        let hostile = Data((String(repeating: "[", count: 600) + "x").utf8)
        #expect(throws: DecodingError.self) { try JSONCoding.decode([Double].self, from: hostile) }
        let deepButAllowed = Data((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)
        #expect(throws: DecodingError.self) { try JSONCoding.decode([Double].self, from: deepButAllowed) }
        let bracketsInAString = Data(("[\"" + String(repeating: "[", count: 600) + "\"]").utf8)
        #expect(try JSONCoding.decode([String].self, from: bracketsInAString) == [String(repeating: "[", count: 600)])
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

    /// The parser's shortcuts (an ASCII string without escapes made from its bytes, an integer of at most 15
    /// digits made from its digits) read every document as Foundation reads it, and refuse what it refuses.
    @Test(
        "the string and integer shortcuts read as Foundation does",
        arguments: [
            #"["plain", "", "café", "😀 emoji", "tab\tand\\ \"quoted\"", "\u00e9\ud83d\ude00", "a/b"]"#,
            "[0, -0, 7, -7, 123456789012345, -123456789012345, 1234567890123456, 12345678901234567890, 2.50, 1e3]",
            #"{"id":"0190f5c0-3f00-7a11-8b22-000000000001","n":42,"nested":{"k":[1,"x",null,true]}}"#,
        ])
    func shortcutsMatchFoundation(text: String) throws {
        let parsed = try JSONText.parse(text)
        #expect(parsed == (try JSONCoding.decode(JSONValue.self, from: Data(text.utf8))))
        if case .array(let values) = parsed, values.count > 1, case .number(let zero) = values[1], text.hasPrefix("[0")
        {
            #expect(zero.sign == .minus, "-0 keeps its sign")
        }
    }

    @Test("the string shortcut still refuses raw control characters and invalid UTF-8")
    func shortcutsRefuseBadStrings() {
        #expect(throws: JSONParseError.self) { try JSONText.parse(Array("[\"a\u{01}b\"]".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONText.parse([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D]) }
        #expect(throws: JSONParseError.self) { try JSONText.parse([0x5B, 0x22, 0xC3, 0x22, 0x5D]) }
    }
}
