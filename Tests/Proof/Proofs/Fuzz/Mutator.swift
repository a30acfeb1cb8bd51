/// Seeded structure-aware mutations of JSON documents (and of any bytes): what a hostile or broken peer sends.
/// The same seed gives the same mutations, so a finding is replayed from the seed and iteration it reports.
public struct Mutator: Sendable {
    private var random: SeededRandom

    public init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Tokens that sit on parser edges: numbers past every integer width, escapes of lone surrogates, invalid
    /// UTF-8, NUL, exponents, empty containers, and the JSON literals.
    static let tokens: [[UInt8]] =
        [
            "null", "true", "false", "0", "-0", "1e999", "-1e-999", "9223372036854775807", "9223372036854775808",
            "-9223372036854775809", "18446744073709551616", "1.5", "0.1e1", "1E+2", "\"\"", "\"\\ud800\"",
            "\"\\u0000\"",
            "\"\\uZZZZ\"", "\"\\", "[]", "{}", "[{}]", "{\"\":null}", "0001-01-01T00:00:00Z", "2026-02-30T25:61:61Z",
            "2026-01-20T10:15:30.1234567891Z", "2026-01-20t10:15:30+14:00", "NaN", "Infinity", ",", ":", "\"a\":",
        ].map { Array($0.utf8) } + [[0xC0, 0x80], [0xFF], [0xED, 0xA0, 0x80], [0x00], [0xEF, 0xBB, 0xBF]]

    /// One to four mutations of `input`.
    public mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) { mutateOnce(&bytes) }
        return bytes
    }

    private mutating func mutateOnce(_ bytes: inout [UInt8]) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<11, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case 1 where !bytes.isEmpty:
            bytes[position] = random.pick(Array("{}[]\",:\\0-e.tfn ".utf8)) ?? 0
        case 2 where !bytes.isEmpty:
            let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
            bytes.removeSubrange(position..<end)
        case 3 where !bytes.isEmpty:
            let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        case 4:
            bytes.insert(contentsOf: random.pick(Self.tokens) ?? [], at: position)
        case 5:
            replaceValue(&bytes)
        case 6:
            bytes = Array(bytes.prefix(position))
        case 7:
            // Deep nesting: parsers that recurse per level must refuse, not overflow the stack.
            let depth = Int.random(in: 100...100_000, using: &random)
            let open: UInt8 = random.chance(0.5) ? UInt8(ascii: "[") : UInt8(ascii: "{")
            bytes.insert(contentsOf: [UInt8](repeating: open, count: depth), at: position)
            // On one line half the time: JSONDecoder trapped on deep nesting only with no line break before it.
            if random.chance(0.5) { bytes.removeAll { $0 == UInt8(ascii: "\n") } }
        case 8:
            let length = Int.random(in: 1_000...300_000, using: &random)
            bytes.insert(
                contentsOf: [UInt8(ascii: "\"")] + [UInt8](repeating: 0x61, count: length) + [0x22], at: position)
        case 9 where !bytes.isEmpty:
            // A key repeated: the last one wins or the document is refused, never a mix.
            if let colon = bytes[position...].firstIndex(of: UInt8(ascii: ":")),
                let start = bytes[..<colon].lastIndex(of: UInt8(ascii: ","))
                    ?? bytes[..<colon].lastIndex(of: UInt8(ascii: "{"))
            {
                let end = bytes[colon...].firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") } ?? colon
                var member = Array(bytes[(start + 1)..<end])
                member.insert(UInt8(ascii: ","), at: 0)
                bytes.insert(contentsOf: member, at: end)
            }
        default:
            bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
        }
    }

    /// Replaces one JSON value (a string, number or literal after a colon) with a token.
    private mutating func replaceValue(_ bytes: inout [UInt8]) {
        let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
        guard let colon = random.pick(colons) else { return }
        var end = colon + 1
        var inString = false
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") && bytes[end - 1] != UInt8(ascii: "\\") { inString.toggle() }
            if !inString && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")) {
                break
            }
            end += 1
        }
        bytes.replaceSubrange((colon + 1)..<end, with: random.pick(Self.tokens) ?? [])
    }
}
