import Foundation
import Models
import Testing

@Suite("RFC 3339 timestamps")
struct RFC3339Tests {
    @Test(
        "S2 accepts 0–9 fractional digits, Z/z and offsets, T/t, truncating beyond the millisecond",
        arguments: [
            ("2026-01-17T01:44:52Z", 1_768_614_292_000),
            ("2026-01-17T01:44:52.1Z", 1_768_614_292_100),
            ("2026-01-17T01:44:52.12Z", 1_768_614_292_120),
            ("2026-01-17T01:44:52.123Z", 1_768_614_292_123),
            ("2026-01-17T01:44:52.123456Z", 1_768_614_292_123),
            ("2026-01-17T01:44:52.123999999Z", 1_768_614_292_123),
            ("2026-01-17t01:44:52.123z", 1_768_614_292_123),
            ("2026-01-17T02:44:52.123+01:00", 1_768_614_292_123),
            ("2026-01-16T20:14:52.123-05:30", 1_768_614_292_123),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59.999Z", -1),
            ("0001-01-01T00:00:00Z", RFC3339.zeroInstantMilliseconds),
            ("2024-02-29T12:00:00Z", 1_709_208_000_000),
        ] as [(String, Int64)])
    func parses(text: String, milliseconds: Int64) {
        // S2: Request bodies carry instants as RFC 3339 UTC with exactly three fractional digits and Z; values with…
        #expect(RFC3339.milliseconds(from: text) == milliseconds)
    }

    @Test(
        "S2 rejects anything else (the value then reads as absent)",
        arguments: [
            "", "2026-01-17", "2026-01-17T01:44:52", "2026-01-17 01:44:52Z", "2026-01-17T01:44:52.Z",
            "2026-01-17T01:44:52.1234567890Z", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
            "2026-01-17T24:00:00Z", "2026-01-17T01:60:00Z", "2026-01-17T01:44:60Z", "2026-01-17T01:44:52+0100",
            "2026-01-17T01:44:52.123Zjunk", "0000-01-01T00:00:00Z", "１２３４-01-01T00:00:00Z",
        ])
    func rejects(text: String) {
        // S2: Request bodies carry instants as RFC 3339 UTC with exactly three fractional digits and Z; values with…
        #expect(RFC3339.milliseconds(from: text) == nil)
    }

    @Test("S2 formats UTC with exactly three fractional digits and Z, from integers")
    func formats() {
        #expect(RFC3339.string(fromMilliseconds: 1_768_614_292_123) == "2026-01-17T01:44:52.123Z")
        #expect(RFC3339.string(fromMilliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(fromMilliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.string(fromMilliseconds: RFC3339.zeroInstantMilliseconds) == "0001-01-01T00:00:00.000Z")
        #expect(RFC3339.string(fromMilliseconds: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
    }

    @Test("format and parse round-trip across four centuries of days")
    func roundTrips() {
        var milliseconds: Int64 = -12_219_292_800_000  // 1582-10-15
        while milliseconds < 32_503_680_000_000 {  // 3000-01-01
            let text = RFC3339.string(fromMilliseconds: milliseconds)
            #expect(RFC3339.milliseconds(from: text) == milliseconds, "\(text)")
            milliseconds += 86_400_000 * 7 + 3_723_456
        }
    }

    @Test("dates keep millisecond precision: .123 is never written as .122")
    func noFloatingPointDrift() {
        for milliseconds in stride(from: Int64(1_768_614_292_000), to: 1_768_614_293_000, by: 1) {
            let date = Date(millisecondsSince1970: milliseconds)
            #expect(date.millisecondsSince1970 == milliseconds)
        }
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_768_614_292.1229)) == "2026-01-17T01:44:52.123Z")
    }
}
