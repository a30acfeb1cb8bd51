import Foundation

/// A regular expression the documentation checks run over every file of the repository. ICU's engine
/// (`NSRegularExpression`): Swift's `Regex` takes seconds for that walk, and a synchronous test holds one of the
/// two threads of the cooperative pool the whole time, which starves the suites that run beside it.
struct TextPattern: Sendable {
    private let expression: NSRegularExpression

    init(_ pattern: String, caseInsensitive: Bool = false) {
        do {
            let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
            expression = try NSRegularExpression(pattern: pattern, options: options.union(.anchorsMatchLines))
        } catch {
            preconditionFailure("the pattern \(pattern) does not compile: \(error)")
        }
    }

    /// Every match in `text`: for each, its capture groups from 1 on, nil for a group that did not take part.
    func matches(in text: String) -> [[String?]] {
        locatedMatches(in: text).map(\.groups)
    }

    /// One match: where it is in the text, and its capture groups from 1 on (nil for a group that did not take part).
    struct Match {
        let range: Range<String.Index>
        let groups: [String?]
    }

    /// Every match in `text`, with where it is.
    func locatedMatches(in text: String) -> [Match] {
        let whole = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: whole).compactMap { match in
            guard let range = Range(match.range, in: text) else { return nil }
            let groups = (1..<match.numberOfRanges).map { group in
                Range(match.range(at: group), in: text).map { String(text[$0]) }
            }
            return Match(range: range, groups: groups)
        }
    }

    /// The first match in `text`, as `matches(in:)` gives it.
    func firstMatch(in text: some StringProtocol) -> [String?]? {
        let string = String(text)
        let whole = NSRange(string.startIndex..., in: string)
        guard let match = expression.firstMatch(in: string, range: whole) else { return nil }
        return (1..<match.numberOfRanges).map { group in
            Range(match.range(at: group), in: string).map { String(string[$0]) }
        }
    }

    /// Whether `text` holds a match.
    func occurs(in text: some StringProtocol) -> Bool {
        let string = String(text)
        return expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }
}
