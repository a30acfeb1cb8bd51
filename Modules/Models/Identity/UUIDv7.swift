import Foundation
import Synchronization

/// Time-ordered identifiers (RFC 9562 version 7) for entities, mutations and idempotency keys.
///
/// Kept hand-written: Foundation's `UUID()` is version 4, and S1 needs ids built from the injected clock, which no
/// library on this machine offers.
///
/// Bytes 0–5 hold the Unix milliseconds of the supplied instant, always (sync-engine S1: ids are built from the
/// injected clock, so a test clock and the process clock never leak into each other's ids). Within one
/// millisecond, the 12 bits after the version nibble are a counter seeded randomly, so ids of one instant strictly
/// increase; past the counter's range the next millisecond is borrowed. An instant earlier than the previous one
/// starts afresh at that instant: order follows the clock, and uniqueness rests on the 74 random bits. The
/// remaining 62 bits are random. Output is lowercase 8-4-4-4-12.
public enum UUIDv7 {
    /// A new id for the instant `date` (taken from the injected clock by callers), from the process-wide
    /// generator.
    public static func generate(at date: Date) -> String {
        shared.generate(at: date)
    }

    /// True when `text` is a canonical lowercase or uppercase UUID with version 7 and the RFC 4122 variant.
    public static func isValid(_ text: String) -> Bool {
        guard let bytes = UUIDText.bytes(of: text) else { return false }
        return bytes[6] >> 4 == 7 && bytes[8] >> 6 == 0b10
    }

    /// The Unix milliseconds embedded in a version-7 id.
    public static func milliseconds(of text: String) -> Int64? {
        guard isValid(text), let bytes = UUIDText.bytes(of: text) else { return nil }
        return bytes[0..<6].reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    private static let shared = Generator()

    /// A generator, monotonic while its instants do not go back. The process shares one; tests that need their own
    /// sequence make another.
    public final class Generator: Sendable {
        private struct State {
            /// The instant last asked for.
            var requested: Int64 = .min
            /// The time last written into an id: `requested`, or a few milliseconds later after borrowing.
            var milliseconds: Int64 = .min
            var counter: UInt16 = 0
        }

        private let state = Mutex(State())

        /// A generator that has made no id yet.
        public init() {}

        /// A new id of `date`, ordered after every id this generator made before (its time a few milliseconds later
        /// when more ids than a millisecond holds are asked for at once).
        public func generate(at date: Date) -> String {
            next(milliseconds: date.millisecondsSince1970)
        }

        func next(milliseconds now: Int64) -> String {
            let (milliseconds, counter) = state.withLock { state -> (Int64, UInt16) in
                if now > state.milliseconds || now < state.requested {
                    // A later instant, or an earlier one than last asked for: the instant's own time, afresh.
                    state.milliseconds = now
                    state.counter = UInt16.random(in: 0..<0x800)
                } else if state.counter < 0xFFF {
                    state.counter += 1
                } else {
                    state.milliseconds += 1
                    state.counter = UInt16.random(in: 0..<0x800)
                }
                state.requested = now
                return (state.milliseconds, state.counter)
            }
            var bytes = [UInt8](repeating: 0, count: 16)
            let unsigned = UInt64(bitPattern: max(0, milliseconds))
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: unsigned >> (40 - 8 * UInt64(index))) }
            bytes[6] = 0x70 | UInt8(counter >> 8)
            bytes[7] = UInt8(truncatingIfNeeded: counter)
            var random = SystemRandomNumberGenerator()
            let tail = random.next() as UInt64
            for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: tail >> (56 - 8 * UInt64(index - 8))) }
            bytes[8] = 0x80 | (bytes[8] & 0x3F)
            return UUIDText.string(from: bytes)
        }
    }
}

/// Canonical 8-4-4-4-12 UUID text.
public enum UUIDText {
    /// True for a canonical hyphenated UUID of any version, in either case.
    public static func isCanonical(_ text: String) -> Bool { bytes(of: text) != nil }

    /// The 16 bytes of a canonical hyphenated UUID, nil for any other spelling (braces, `urn:uuid:`, bare hex).
    public static func bytes(of text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for (position, character) in utf8.enumerated() {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let nibble = hexValue(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    static func string(from bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { output.append(UInt8(ascii: "-")) }
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
