/// Calendar arithmetic in the proleptic Gregorian calendar, counted in days since 1970-01-01: the calendar of
/// RFC 3339 and of every time on the wire.
///
/// Foundation's Gregorian calendar turns Julian before 1582-10-15, so a date of an earlier year read or shown through
/// it moves by days (1500-01-01 would be stored as 1500-01-10). Whatever turns a date people write into an instant,
/// or back, uses this instead.
public enum ProlepticCalendar {
    /// 24 hours: every day of the calendar has them (no leap seconds).
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// The day number of a civil date (1970-01-01 is 0).
    public static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day number.
    public static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// How many days `month` (1–12) of `year` has.
    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The day number and the milliseconds into that day of an instant counted from the epoch (floor division, so
    /// an instant before 1970 falls on its own day).
    public static func split(milliseconds: Int64) -> (days: Int64, millisecondOfDay: Int64) {
        let days =
            milliseconds >= 0 ? milliseconds / millisecondsPerDay : -((-milliseconds - 1) / millisecondsPerDay) - 1
        return (days, milliseconds - days * millisecondsPerDay)
    }
}
