import Foundation

/// A compact JSON writer and parser for `JSONValue`, without Foundation's coders.
///
/// Kept hand-written (measured): feed pages parsed through it instead of `Decodable` took a third off the client's
/// push round (docs/history/performance.md), and no library gives canonical text byte-equal to `JSONCoding`'s.
///
/// Used where JSON is stored or compared rather than exchanged through `Codable`: SQLite columns holding
/// property maps and defaults, and canonical forms (sorted keys, no insignificant whitespace) for idempotency
/// fingerprints. Output matches `JSONCoding` for the same value: sorted keys, `/` unescaped, integral numbers
/// without a fraction.
public enum JSONText {
    /// The canonical text of `value`.
    public static func string(_ value: JSONValue) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(value, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the canonical text of `value` to `output`.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): writeNumber(number, into: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(members[key] ?? .null, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ number: Double, into output: inout [UInt8]) {
        if number.rounded() == number, abs(number) < 9_007_199_254_740_992 {
            output.append(contentsOf: String(Int64(number)).utf8)
        } else if number.isFinite {
            output.append(contentsOf: number.description.utf8)
        } else {
            output.append(contentsOf: "null".utf8)
        }
    }

    static func writeString(_ text: String, into output: inout [UInt8]) {
        var text = text
        text.withUTF8 { writeString(bytes: $0, into: &output) }
    }

    /// Writes UTF-8 `bytes` as a JSON string. Runs that need no escape are copied at once.
    ///
    /// Memory safety: every slice read lies within `bytes` (`start <= index <= bytes.count`), and `bytes` is only
    /// read during the call, while the caller's closure keeps it alive (docs/reliability.md, "The audit").
    public static func writeString(bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var start = 0
        for (index, byte) in bytes.enumerated()
        where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            start = index + 1
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            default:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        output.append(UInt8(ascii: "\""))
    }

    /// Parses one JSON value (RFC 8259) filling the whole input, surrounding whitespace allowed.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue
    where Bytes.Element == UInt8 {
        try parse(bytes, sharing: nil)
    }

    /// `parse(_:)`, where an object member named `key` whose text repeats an earlier such member's, byte for byte at
    /// the same depth, gets that member's value again instead of a new parse: the events of a listing embed one type
    /// each, from the few the account has, and read this way they share one copy of each.
    public static func parse<Bytes: Collection>(
        _ bytes: Bytes, sharing key: String?
    ) throws(JSONParseError) -> JSONValue where Bytes.Element == UInt8 {
        var parser = Parser(bytes: Array(bytes), sharedKey: key)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// Parses `text`, which must hold exactly one JSON value.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = JSONCoding.maximumDepth
        /// The member name whose repeats are shared (`parse(_:sharing:)`), and the distinct such members read, by
        /// the length of their text. Bounded, so that a hostile page cannot make the look-ups long.
        let sharedKey: String?
        var shared: [Int: [(text: Range<Int>, depth: Int, value: JSONValue)]] = [:]
        var sharedCount = 0
        static let sharedLimit = 256

        init(bytes: [UInt8], sharedKey: String?) {
            self.bytes = bytes
            self.sharedKey = sharedKey
        }

        /// The member value at `index`, read once per distinct text when `key` is the shared key.
        mutating func member(_ key: String, depth: Int) throws(JSONParseError) -> JSONValue {
            guard let sharedKey, key == sharedKey, index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
                return try value(depth: depth)
            }
            let length = objectLength(from: index)
            if let length, let earlier = shared[length]?.first(where: { $0.depth == depth && repeats($0.text) }) {
                index += length
                return earlier.value
            }
            let start = index
            let member = try value(depth: depth)
            if let length, index - start == length, sharedCount < Self.sharedLimit {
                shared[length, default: []].append((start..<index, depth, member))
                sharedCount += 1
            }
            return member
        }

        /// The length of the object text starting at `start` up to its closing brace, found by counting braces
        /// outside strings; nil when the input ends first. Only a hint: a match is a byte-equal earlier text, which
        /// parsed whole.
        func objectLength(from start: Int) -> Int? {
            var depth = 0
            var inString = false
            var position = start
            while position < bytes.count {
                let byte = bytes[position]
                if inString {
                    if byte == UInt8(ascii: "\\") {
                        position += 1
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { return position + 1 - start }
                }
                position += 1
            }
            return nil
        }

        /// True when the bytes from `index` on begin with those of `earlier`, a whole value parsed before: the same
        /// bytes here are the same value.
        func repeats(_ earlier: Range<Int>) -> Bool {
            // Both ranges lie within `bytes`: `earlier` was parsed from it, and the guard bounds the other.
            guard index + earlier.count <= bytes.count else { return false }
            return bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return false }
                return memcmp(base + index, base + earlier.lowerBound, earlier.count) == 0
            }
        }

        func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(JSONParseError) {
            for byte in word.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw error("invalid literal") }
                index += 1
            }
        }

        mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
            index += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                // A repeated key keeps its first value, as Foundation's JSONDecoder does: the REST decoders and this
                // parser (the change feed's fast path, the server's bodies) must read one document one way.
                let member = try member(key, depth: depth + 1)
                // One hash in the common case; a repeat puts the first value back.
                if let first = members.updateValue(member, forKey: key) { members[key] = first }
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw error("expected ',' or ']'")
                }
            }
        }

        /// A string from its opening quote. Most strings of a page (ids, times, names) are ASCII without escapes:
        /// those are made from their bytes at once; any other goes through `escapedString`.
        mutating func string() throws(JSONParseError) -> String {
            index += 1
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: bytes[start..<index], as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
                index += 1
            }
            index = start
            return try escapedString()
        }

        /// A string from just after its opening quote, escapes decoded and UTF-8 validated.
        mutating func escapedString() throws(JSONParseError) -> String {
            var output: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: output, as: UTF8.self) else { throw error("invalid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw error("unterminated escape") }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
                    case UInt8(ascii: "n"): output.append(0x0A)
                    case UInt8(ascii: "r"): output.append(0x0D)
                    case UInt8(ascii: "t"): output.append(0x09)
                    case UInt8(ascii: "b"): output.append(0x08)
                    case UInt8(ascii: "f"): output.append(0x0C)
                    case UInt8(ascii: "u"): try unicodeEscape(into: &output)
                    default: throw error("invalid escape")
                    }
                case 0..<0x20:
                    throw error("control character in string")
                default:
                    output.append(byte)
                }
            }
            throw error("unterminated string")
        }

        mutating func hexQuad() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("short \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                value = value << 4 | digit
            }
            return value
        }

        mutating func unicodeEscape(into output: inout [UInt8]) throws(JSONParseError) {
            var scalar = try hexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate") }
                index += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
            output.append(contentsOf: String(Character(unicode)).utf8)
        }

        mutating func number() throws(JSONParseError) -> Double {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid value") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            // An integer of at most 15 digits is exact as a Double: made from its digits, without a string.
            let negative = bytes[start] == UInt8(ascii: "-")
            let digits = bytes[(negative ? start + 1 : start)..<index]
            if digits.count <= 15, digits.allSatisfy(isDigit) {
                var value: Int64 = 0
                for digit in digits { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }
                return negative ? -Double(value) : Double(value)
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let number = Double(text), number.isFinite else { throw error("number out of range") }
            // A non-zero literal too small for a Double (1e-999) is refused, as JSONDecoder refuses it, rather than
            // read as 0: the fast path and the decoders must read one document one way (docs/history/reliability.md).
            if number == 0,
                bytes[start..<index].prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
                    .contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") })
            {
                throw error("number out of range")
            }
            return number
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}

/// Why a text is not JSON, and where.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// Byte offset of the problem.
    public let offset: Int

    public var description: String { offset < 0 ? message : "\(message) at byte \(offset)" }

    /// A well-formed document of the wrong shape (no byte offset).
    init(message: String) {
        self.init(message: message, offset: -1)
    }

    init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }
}
