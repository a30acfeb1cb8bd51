import Foundation

/// The revision-3 capabilities a server announces in `Trendy-Features` (api-v1 §2.1, sync-engine R0).
///
/// The engine uses a capability only when the server named it; the original backend sends no header, which reads as
/// no capability at all.
public struct ServerFeatures: Sendable, Hashable {
    /// The names the server announced.
    public var names: Set<String>

    /// The features `names`; none by default.
    public init(_ names: some Sequence<String> = []) {
        self.names = Set(names)
    }

    /// Event updates may carry `properties_patch` (api-v1 §3.5a).
    public static let propertiesPatch = "properties_patch"
    /// `GET /api/v1/events` pages by `after` (api-v1 §5.3.1).
    public static let after = "after"
    /// `GET /api/v1/changes/stream` (api-v1 §13).
    public static let stream = "stream"
    /// `GET /api/v1/sync/digest` (api-v1 §14).
    public static let digest = "digest"
    /// The feed and the stream check `since_created_at` against the change `since` names (api-v1 §6.5).
    public static let sinceCreatedAt = FeedPosition.createdAtParameter
    /// `GET` and `DELETE /api/v1/devices` and the `Trendy-Device` header (api-v1 §16).
    public static let devices = "devices"

    /// The header's name.
    public static let headerName = "Trendy-Features"

    /// Reads a header value: names separated by commas, blanks ignored; an absent header is no feature.
    public init(header: String?) {
        let names = (header ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        self.init(names.filter { !$0.isEmpty })
    }

    /// The header value, names sorted.
    public var header: String { names.sorted().joined(separator: ", ") }

    /// True when the server announced `name`.
    public func has(_ name: String) -> Bool { names.contains(name) }
}

/// A create or update answer that may have been replayed from an earlier request with the same key (api-v1 §7).
///
/// `replayed` is not part of the JSON: the network client sets it from `Idempotency-Replayed` (or
/// `X-Idempotency-Replayed`). A replayed answer proves nothing about the row today, so the engine reads the entity
/// back (sync-engine R5).
public protocol ReplayableAnswer {
    /// True when the answer was replayed.
    var replayed: Bool { get set }
}
