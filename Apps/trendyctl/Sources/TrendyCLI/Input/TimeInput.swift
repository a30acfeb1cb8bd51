import Foundation
import Models

/// TIME arguments (spec/trendyctl.md §1.2): RFC 3339, `YYYY-MM-DD` and `YYYY-MM-DD HH:MM` in the local time zone,
/// and `now`.
enum TimeInput {
    static let accepted = "RFC 3339 (2026-11-21T09:30:00Z), YYYY-MM-DD, \"YYYY-MM-DD HH:MM\" (local time) or now"

    static func parse(_ text: String, option: String, now: Date) throws(CLIError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now.roundedToMilliseconds }
        if let date = RFC3339.date(from: trimmed) { return date }
        if let date = local(trimmed) { return date }
        throw .usage("\(option) \"\(text)\" is not a time: use \(accepted)")
    }

    /// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` (also with `T`), read in the process's time zone (`TZ`).
    private static func local(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard (1...2).contains(parts.count) else { return nil }
        let day = parts[0].split(separator: "-")
        guard day.count == 3, day[0].count == 4, day[1].count == 2, day[2].count == 2,
            let year = Int(day[0]), let month = Int(day[1]), let dayOfMonth = Int(day[2])
        else { return nil }
        var components = DateComponents(year: year, month: month, day: dayOfMonth, hour: 0, minute: 0)
        if parts.count == 2 {
            let clock = parts[1].split(separator: ":")
            guard clock.count == 2, clock[0].count == 2, clock[1].count == 2, let hour = Int(clock[0]),
                let minute = Int(clock[1]), (0..<24).contains(hour), (0..<60).contains(minute)
            else { return nil }
            components.hour = hour
            components.minute = minute
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date)
                == DateComponents(year: year, month: month, day: dayOfMonth)
        else { return nil }  // rejects 2026-02-30, which Calendar would roll over
        return date
    }

    /// How a time reads in tables: local, to the minute.
    static func display(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0)
    }
}
