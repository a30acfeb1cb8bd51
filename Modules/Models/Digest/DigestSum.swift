/// A 256-bit unsigned integer that only adds, modulo 2²⁵⁶: the digest's aggregate of entity hashes (api-v1 §14).
/// Addition commutes, so the order entities are read in does not matter, and a duplicate adds twice instead of
/// cancelling (as XOR would).
public struct DigestSum: Sendable, Hashable {
    /// Most significant first.
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// Nothing added yet.
    public static let zero = DigestSum()

    /// Zero.
    public init() {}

    /// A 32-byte SHA-256 read as a big-endian integer.
    public init(hash bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 is 32 bytes")
        func word(_ index: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in bytes[index * 8..<index * 8 + 8] { value = value << 8 | UInt64(byte) }
            return value
        }
        words = (word(0), word(1), word(2), word(3))
    }

    /// 32 stored bytes read as `init(hash:)` reads a SHA-256; nil when there are not 32 (a damaged column). Takes
    /// the column's buffer as it is, since a digest reads one for every event of an account.
    public init?(stored bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 32 else { return nil }
        func word(_ index: Int) -> UInt64 {
            var value: UInt64 = 0
            for offset in index * 8..<index * 8 + 8 { value = value << 8 | UInt64(bytes[offset]) }
            return value
        }
        words = (word(0), word(1), word(2), word(3))
    }

    /// 64 hex digits, as `hexString` writes them.
    public init?(hex: String) {
        let bytes = Array(hex.utf8)
        guard bytes.count == 64 else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(bytes[index]), let low = Self.nibble(bytes[index + 1]) else { return nil }
            decoded.append(high << 4 | low)
        }
        self.init(hash: decoded)
    }

    /// The sum modulo 2²⁵⁶.
    public static func + (lhs: DigestSum, rhs: DigestSum) -> DigestSum {
        var carry: UInt64 = 0
        func add(_ left: UInt64, _ right: UInt64) -> UInt64 {
            let (partial, first) = left.addingReportingOverflow(right)
            let (total, second) = partial.addingReportingOverflow(carry)
            carry = first || second ? 1 : 0
            return total
        }
        var sum = DigestSum()
        let w3 = add(lhs.words.3, rhs.words.3)
        let w2 = add(lhs.words.2, rhs.words.2)
        let w1 = add(lhs.words.1, rhs.words.1)
        let w0 = add(lhs.words.0, rhs.words.0)  // the carry out of the top word is the modulo
        sum.words = (w0, w1, w2, w3)
        return sum
    }

    /// Adds `rhs` to `lhs`, modulo 2²⁵⁶.
    public static func += (lhs: inout DigestSum, rhs: DigestSum) { lhs = lhs + rhs }

    /// 64 lowercase hex digits.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int(word >> UInt64(shift) & 0xF)]) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func == (lhs: DigestSum, rhs: DigestSum) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
