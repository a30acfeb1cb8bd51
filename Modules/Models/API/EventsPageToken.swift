import Foundation

/// Where a keyset listing of events goes on (api-v1 §5.3.1 `after`): the last listed row's `timestamp` and `id`.
///
/// Opaque to clients, self-contained (any instance accepts it, it never expires), written `<milliseconds>.<id>`.
/// The next page holds the events strictly after that row in the listing's order, `timestamp` descending, then `id`
/// descending: a concurrent insert or delete cannot shift an event over a page boundary.
public struct EventsPageToken: Sendable, Hashable {
    /// The row's `timestamp`, in milliseconds since 1970.
    public var timestamp: Int64
    /// Lowercase.
    public var id: String

    /// The token of the row at `timestamp` with `id`.
    public init(timestamp: Int64, id: String) {
        self.timestamp = timestamp
        self.id = id.lowercased()
    }

    /// The token of a listed event.
    public init(after event: APIEvent) {
        self.init(timestamp: event.timestamp.millisecondsSince1970, id: event.id)
    }

    /// Reads a token; nil when it is not one (the server answers 400).
    public init?(text: String) {
        guard let dot = text.dropFirst().firstIndex(of: ".") else { return nil }
        let id = String(text[text.index(after: dot)...])
        guard let timestamp = Int64(text[..<dot]), UUIDText.isCanonical(id) else { return nil }
        self.init(timestamp: timestamp, id: id)
    }

    /// The token as the `X-Next-After` header and the `after` parameter carry it.
    public var text: String { "\(timestamp).\(id)" }

    /// True when `event` comes after this token's row in the listing order.
    public func precedes(timestamp: Int64, id: String) -> Bool {
        timestamp < self.timestamp || (timestamp == self.timestamp && id.lowercased() < self.id)
    }
}
