import Foundation
import Models

/// The checks one input goes through, per parser of the client: shared by the seeded mutator of `make test`
/// (`DecoderFuzz`) and the coverage-guided `trendy-fuzz` (libFuzzer), so both hold the parsers to the same rules.
public enum ParserChecks {
    public enum Verdict: Sendable {
        case accepted
        /// Refused with an error that says what is wrong.
        case refused
        case wrong(String)
    }

    public static let targets: [(String, @Sendable ([UInt8]) -> Verdict)] = [
        (
            "JSONText.parse",
            { bytes in
                do {
                    let value = try JSONText.parse(bytes)
                    // What was accepted must survive its own serialisation.
                    let again = try JSONText.parse(JSONText.string(value))
                    return again == value
                        ? .accepted : .wrong("parse(string(v)) != v for \(JSONText.string(value).prefix(200))")
                } catch {
                    return explained(error)
                }
            }
        ),
        ("ChangeFeedResponse", changeFeed),
        ("APIEvent.page", eventsPage),
        (
            "ProblemDetails.parse",
            { bytes in
                switch ProblemDetails.parse(bytes) {
                case .problem, .legacy: .accepted
                case .unstructured: .refused
                }
            }
        ),
        decoder([APIEventType].self), decoder(APIEventType.self), decoder([APIEvent].self), decoder(APIEvent.self),
        decoder([APIGeofence].self), decoder(APIGeofence.self), decoder([APIPropertyDefinition].self),
        decoder(APIPropertyDefinition.self), decoder(BatchCreateEventsResponse.self),
        decoder(FeedPosition.self), decoder(HealthResponse.self),
        ("RFC3339", rfc3339),
    ]

    static func decoder<T: Decodable & SendableMetatype>(_ type: T.Type) -> (String, @Sendable ([UInt8]) -> Verdict) {
        (
            "JSONCoding.decode(\(type))",
            { bytes in
                do {
                    _ = try JSONCoding.decode(type, from: Data(bytes))
                    return .accepted
                } catch {
                    return explained(error)
                }
            }
        )
    }

    /// The fast path and `init(from:)` follow the same rules: both refuse, or both give the same page.
    static func changeFeed(_ bytes: [UInt8]) -> Verdict {
        let fast = Result { () throws(JSONParseError) in try ChangeFeedResponse(jsonBytes: bytes) }
        let coded = Result { try JSONCoding.decode(ChangeFeedResponse.self, from: Data(bytes)) }
        switch (fast, coded) {
        case (.success(let a), .success(let b)):
            if a == b { return .accepted }
            let index =
                a.changes.indices.first { !b.changes.indices.contains($0) || a.changes[$0] != b.changes[$0] } ?? 0
            let row = { (page: ChangeFeedResponse) in
                page.changes.indices.contains(index) ? "\(page.changes[index])" : "-"
            }
            return .wrong(
                "fast path and Decodable differ: cursor \(a.nextCursor)/\(b.nextCursor), more \(a.hasMore)/\(b.hasMore), "
                    + "rows \(a.changes.count)/\(b.changes.count); row \(index):\n    fast:      \(row(a))\n    Decodable: \(row(b))"
            )
        case (.failure(let error), .failure): return explained(error)
        case (.success(let page), .failure(let error)):
            let data = page.changes.map { $0.data.map(JSONText.string) ?? "null" }.joined(separator: "\n    ")
            return .wrong("the fast path accepts what Decodable refuses: \(error)\n    data: \(data.prefix(2000))")
        case (.failure(let error), .success):
            // Not JSON by RFC 8259 (trailing commas, raw control characters, invalid UTF-8, garbage in a member
            // nobody reads): Foundation tolerates some of it, the fast path refuses all of it, and our peers never
            // send it (docs/reliability.md). A page that IS JSON must read the same both ways.
            if (try? JSONText.parse(bytes)) == nil { return .refused }
            return .wrong("the fast path refuses what Decodable accepts: \(error)")
        }
    }

    /// `APIEvent.page(from:)` reads a page without `Codable` and falls back to it on anything odd: both refuse, or
    /// both give the same events.
    static func eventsPage(_ bytes: [UInt8]) -> Verdict {
        let fast = Result { try APIEvent.page(from: Data(bytes)) }
        let coded = Result { try JSONCoding.decode([APIEvent].self, from: Data(bytes)) }
        switch (fast, coded) {
        case (.success(let a), .success(let b)):
            if a == b { return .accepted }
            let index = a.indices.first { !b.indices.contains($0) || a[$0] != b[$0] } ?? 0
            let event = { (events: [APIEvent]) in events.indices.contains(index) ? "\(events[index])" : "-" }
            return .wrong("fast and Codable differ at \(index):\n    fast:    \(event(a))\n    Codable: \(event(b))")
        case (.failure(let error), .failure): return explained(error)
        case (.success, .failure(let error)): return .wrong("the fast reader accepts what Codable refuses: \(error)")
        case (.failure(let error), .success): return .wrong("the fast reader refuses what Codable accepts: \(error)")
        }
    }

    /// Each timestamp-looking string of the input: a parsed time prints as a string that parses to the same time.
    static func rfc3339(_ bytes: [UInt8]) -> Verdict {
        let text = String(decoding: bytes, as: UTF8.self)
        var accepted = false
        for candidate in text.split(separator: "\"") where candidate.count >= 10 && candidate.count <= 64 {
            guard let milliseconds = RFC3339.milliseconds(from: String(candidate)) else { continue }
            accepted = true
            let printed = RFC3339.string(fromMilliseconds: milliseconds)
            guard RFC3339.milliseconds(from: printed) == milliseconds else {
                return .wrong("\(candidate) → \(milliseconds) ms → \(printed), which does not parse back")
            }
            guard let date = RFC3339.date(from: String(candidate)),
                // Rounded, not truncated: far from 1970 a Date (a Double of seconds) sits a hair below its millisecond.
                Int64((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds
            else {
                return .wrong("date(from: \(candidate)) disagrees with milliseconds(from:) = \(milliseconds)")
            }
        }
        return accepted ? .accepted : .refused
    }

    static func explained(_ error: any Error) -> Verdict {
        "\(error)".isEmpty ? .wrong("an error without a message: \(type(of: error))") : .refused
    }
}
