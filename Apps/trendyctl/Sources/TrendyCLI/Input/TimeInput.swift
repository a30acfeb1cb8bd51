import Foundation
import Models

/// TIME arguments (spec/trendyctl.md §1.2): RFC 3339, `YYYY-MM-DD` and `YYYY-MM-DD HH:MM` in the local time zone,
/// `now`, `today`, `yesterday`, `tomorrow`, and times relative to now (`-7d`, `-12h`, `-30m`, `-2w`, `+1d`).
enum TimeInput {
    static let accepted =
        "RFC 3339 (2026-11-21T09:30:00Z), YYYY-MM-DD, \"YYYY-MM-DD HH:MM\" (local time), now, today, yesterday, "
        + "tomorrow, or relative to now (-7d, -12h, -30m, -2w)"

    /// Which instant a day names: a `--since` or `--at` its start, an `--until` its end (the whole day is included).
    enum Bound {
        case start
        case end
    }

    static func parse(_ text: String, option: String, now: Date, bound: Bound = .start) throws(CLIError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let word = trimmed.lowercased()
        if word == "now" { return now.roundedToMilliseconds }
        if let offset = ["yesterday": -1, "today": 0, "tomorrow": 1][word] {
            let calendar = localCalendar
            guard let day = calendar.date(byAdding: .day, value: offset, to: calendar.startOfDay(for: now)) else {
                throw .usage("\(option) \"\(text)\" is out of range")
            }
            return bounded(day, bound)
        }
        if let relative = relative(trimmed, now: now) { return relative }
        if let date = RFC3339.date(from: trimmed) { return date }
        if let (date, dayOnly) = local(trimmed) { return dayOnly ? bounded(date, bound) : date }
        throw .usage("\(option) \"\(text)\" is not a time: use \(accepted)")
    }

    /// `--since` and `--until` of a listing: a day given to `--since` means its start, to `--until` its end. A range
    /// that ends before it starts matches nothing, so it is refused rather than answered with an empty list.
    static func range(since: String?, until: String?, now: Date) throws(CLIError) -> (since: Date?, until: Date?) {
        let start = try since.map { text throws(CLIError) in try parse(text, option: "--since", now: now) }
        let end = try until.map { text throws(CLIError) in try parse(text, option: "--until", now: now, bound: .end) }
        if let start, let end, start > end, let since, let until {
            throw .usage("--since \"\(since)\" is after --until \"\(until)\": no event can match; swap them")
        }
        return (start, end)
    }

    /// An all-day event's instant: its calendar date (in the local time zone) at 00:00 UTC, so that the date reads
    /// the same in every time zone (`displayDay`).
    static func allDay(_ date: Date) -> Date {
        let parts = localCalendar.dateComponents([.year, .month, .day], from: date)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? .current
        return utc.date(from: parts) ?? date
    }

    /// How a time reads in tables: local, to the minute; an all-day event's date alone, as stored (UTC).
    static func display(_ date: Date, allDay: Bool = false) -> String {
        var calendar = localCalendar
        if allDay { calendar.timeZone = TimeZone(identifier: "UTC") ?? .current }
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let day = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        return allDay ? day : day + String(format: " %02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    private static var localCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        return calendar
    }

    /// The start of `day`, or its last millisecond.
    private static func bounded(_ day: Date, _ bound: Bound) -> Date {
        guard bound == .end, let next = localCalendar.date(byAdding: .day, value: 1, to: day) else { return day }
        return next.addingTimeInterval(-0.001)
    }

    /// `-7d`, `+12h`, `-30m`, `-45s`, `-2w`: now moved by that much.
    private static func relative(_ text: String, now: Date) -> Date? {
        guard let sign = text.first, sign == "-" || sign == "+", let unit = text.last,
            let count = Int(text.dropFirst().dropLast()), count >= 0, count <= 100_000
        else { return nil }
        let seconds: Double
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        case "d": seconds = 86_400
        case "w": seconds = 604_800
        default: return nil
        }
        return now.addingTimeInterval((sign == "-" ? -1 : 1) * Double(count) * seconds).roundedToMilliseconds
    }

    /// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` (also with `T`), read in the process's time zone (`TZ`); whether only a
    /// day was given.
    private static func local(_ text: String) -> (Date, dayOnly: Bool)? {
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
        let calendar = localCalendar
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date)
                == DateComponents(year: year, month: month, day: dayOfMonth)
        else { return nil }  // rejects 2026-02-30, which Calendar would roll over
        return (date, parts.count == 1)
    }
}
