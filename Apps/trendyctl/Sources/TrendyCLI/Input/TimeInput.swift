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
            return bounded(localDay(of: now) + Int64(offset), bound)
        }
        if let relative = relative(trimmed, now: now) { return relative }
        if let date = RFC3339.date(from: trimmed) { return date }
        if let (date, day) = local(trimmed) { return day.map { bounded($0, bound) } ?? date }
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
        Date(millisecondsSince1970: localDay(of: date) * ProlepticCalendar.millisecondsPerDay)
    }

    /// How a time reads in tables: local, to the minute; an all-day event's date alone, as stored (UTC).
    static func display(_ date: Date, allDay: Bool = false) -> String {
        let milliseconds = allDay ? date.millisecondsSince1970 : localMilliseconds(of: date)
        let (days, millisecondOfDay) = ProlepticCalendar.split(milliseconds: milliseconds)
        let (year, month, dayOfMonth) = ProlepticCalendar.civilDate(fromDays: days)
        let day = String(format: "%04d-%02d-%02d", Int(year), Int(month), Int(dayOfMonth))
        let (hour, minute) = (millisecondOfDay / 3_600_000, millisecondOfDay / 60_000 % 60)
        return allDay ? day : day + String(format: " %02d:%02d", Int(hour), Int(minute))
    }

    // Dates are counted in the proleptic Gregorian calendar, as RFC 3339 counts them (`ProlepticCalendar`); only
    // the offset of the time zone comes from Foundation.

    /// The instant as a wall clock of the process's time zone (`TZ`) reads it, in milliseconds from the epoch.
    private static func localMilliseconds(of date: Date) -> Int64 {
        date.millisecondsSince1970 + Int64(TimeZone.current.secondsFromGMT(for: date)) * 1000
    }

    /// The local day number (days since 1970-01-01) on which `date` falls.
    private static func localDay(of date: Date) -> Int64 {
        ProlepticCalendar.split(milliseconds: localMilliseconds(of: date)).days
    }

    /// The instant a local wall-clock time names: the zone's offset at that time (read twice, since the offset of
    /// the local reading and of the instant differ around a change of offset).
    private static func instant(localMilliseconds local: Int64) -> Date {
        let zone = TimeZone.current
        let guess = Int64(zone.secondsFromGMT(for: Date(millisecondsSince1970: local))) * 1000
        let offset = Int64(zone.secondsFromGMT(for: Date(millisecondsSince1970: local - guess))) * 1000
        return Date(millisecondsSince1970: local - offset)
    }

    /// The start of local day `day`, or its last millisecond (the instant before the next day starts).
    private static func bounded(_ day: Int64, _ bound: Bound) -> Date {
        let start = { (day: Int64) in instant(localMilliseconds: day * ProlepticCalendar.millisecondsPerDay) }
        guard bound == .end else { return start(day) }
        return start(day + 1).addingTimeInterval(-0.001)
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

    /// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` (also with `T`), read in the process's time zone (`TZ`); the local day
    /// number when only a day was given.
    private static func local(_ text: String) -> (Date, day: Int64?)? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard (1...2).contains(parts.count) else { return nil }
        let date = parts[0].split(separator: "-")
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            let year = Int(date[0]), let month = Int(date[1]), let dayOfMonth = Int(date[2])
        else { return nil }
        // 2026-02-30 is no date (a calendar would roll it over to March).
        guard (1...12).contains(month),
            (1...ProlepticCalendar.daysInMonth(year: Int64(year), month: Int64(month))).contains(Int64(dayOfMonth))
        else { return nil }
        let day = ProlepticCalendar.days(fromCivilYear: Int64(year), month: Int64(month), day: Int64(dayOfMonth))
        guard parts.count == 2 else { return (bounded(day, .start), day) }
        let clock = parts[1].split(separator: ":")
        guard clock.count == 2, clock[0].count == 2, clock[1].count == 2, let hour = Int(clock[0]),
            let minute = Int(clock[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        let local = day * ProlepticCalendar.millisecondsPerDay + Int64(hour) * 3_600_000 + Int64(minute) * 60_000
        return (instant(localMilliseconds: local), nil)
    }
}
