import Foundation

/// RFC 3339 timestamps on integer milliseconds, with no floating point and no `DateFormatter`.
///
/// Kept hand-written: `ISO8601DateFormatter` and `Date.ISO8601FormatStyle` go through `Double` seconds and cannot
/// keep the millisecond truncation and 0–9 digit rules exactly; every pulled row parses several of these.
///
/// The wire rules (api-v1 §3.2, sync-engine §1.2): parse 0–9 fractional digits, `Z`/`z` or a `±hh:mm` offset,
/// `T`/`t`, truncating beyond the millisecond; format UTC with exactly three fractional digits and `Z`.
public enum RFC3339 {
    /// `0001-01-01T00:00:00Z`, the original backend's "no value" instant, in milliseconds.
    public static let zeroInstantMilliseconds: Int64 = -62_135_596_800_000
    /// `10000-01-01T00:00:00Z` in milliseconds: the first instant four digits of year cannot write.
    public static let year10000Milliseconds: Int64 = 253_402_300_800_000

    /// Formats milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func string(fromMilliseconds milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        write(milliseconds: milliseconds, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of `YYYY-MM-DDTHH:MM:SS.mmmZ` (for serialisers that build bytes directly).
    public static func write(milliseconds: Int64, into output: inout [UInt8]) {
        let (days, msOfDay) = ProlepticCalendar.split(milliseconds: milliseconds)
        let (year, month, day) = ProlepticCalendar.civilDate(fromDays: days)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(msOfDay / 3_600_000, 2)
        output.append(UInt8(ascii: ":"))
        digits(msOfDay / 60_000 % 60, 2)
        output.append(UInt8(ascii: ":"))
        digits(msOfDay / 1000 % 60, 2)
        output.append(UInt8(ascii: "."))
        digits(msOfDay % 1000, 3)
        output.append(UInt8(ascii: "Z"))
    }

    /// `date` as the client sends times: UTC, `Z`, three fractional digits (api-v1 §3.2).
    public static func string(from date: Date) -> String {
        string(fromMilliseconds: date.millisecondsSince1970)
    }

    /// Parses an RFC 3339 date-time into milliseconds since the Unix epoch; nil when it is not one.
    public static func milliseconds(from text: String) -> Int64? {
        var parser = Scanner(bytes: Array(text.utf8))
        guard let year = parser.digits(4), parser.take(UInt8(ascii: "-")),
            let month = parser.digits(2), parser.take(UInt8(ascii: "-")),
            let day = parser.digits(2),
            parser.take(UInt8(ascii: "T")) || parser.take(UInt8(ascii: "t")),
            let hour = parser.digits(2), parser.take(UInt8(ascii: ":")),
            let minute = parser.digits(2), parser.take(UInt8(ascii: ":")),
            let second = parser.digits(2)
        else { return nil }
        var millisecond: Int64 = 0
        if parser.take(UInt8(ascii: ".")) {
            var count = 0
            while let digit = parser.digit() {
                count += 1
                if count > 9 { return nil }
                if count <= 3 { millisecond = millisecond * 10 + digit }
            }
            if count == 0 { return nil }
            if count < 3 { for _ in count..<3 { millisecond *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if parser.take(UInt8(ascii: "Z")) || parser.take(UInt8(ascii: "z")) {
            offsetMinutes = 0
        } else if let sign = parser.sign(), let offsetHours = parser.digits(2), parser.take(UInt8(ascii: ":")),
            let offsetMins = parser.digits(2), offsetHours < 24, offsetMins < 60
        {
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard parser.isAtEnd, year >= 1, (1...12).contains(month), day >= 1,
            day <= ProlepticCalendar.daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = ProlepticCalendar.days(fromCivilYear: year, month: month, day: day)
        let local = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return local - offsetMinutes * 60_000
    }

    /// The instant `text` names in any form api-v1 §3.2 accepts, to the millisecond; nil when it names none.
    public static func date(from text: String) -> Date? {
        milliseconds(from: text).map(Date.init(millisecondsSince1970:))
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int64? {
            guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
            defer { index += 1 }
            return Int64(bytes[index] - 0x30)
        }

        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int64? {
            if take(UInt8(ascii: "+")) { return 1 }
            if take(UInt8(ascii: "-")) { return -1 }
            return nil
        }
    }
}

/// Times to the millisecond, the precision every stored and sent time has.
extension Date {
    /// Milliseconds since the Unix epoch, rounded to the nearest millisecond.
    public var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    /// The instant `milliseconds` after the Unix epoch.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    /// This instant rounded to the millisecond, the precision every stored and sent time has.
    public var roundedToMilliseconds: Date {
        Date(millisecondsSince1970: millisecondsSince1970)
    }

    /// `0001-01-01T00:00:00Z`, which the original backend sends for "no value".
    public static let zeroInstant = Date(millisecondsSince1970: RFC3339.zeroInstantMilliseconds)

    /// True for `zeroInstant`.
    public var isZeroInstant: Bool { millisecondsSince1970 == RFC3339.zeroInstantMilliseconds }
}
