import Foundation

/// The root URL of a Trendy server, normalised so two spellings of one server compare equal (sync-engine §1.9):
/// lowercase scheme and host, no trailing slash, no query or fragment.
public struct ServerRoot: Sendable, Hashable, CustomStringConvertible {
    /// The normalised text, e.g. `http://127.0.0.1:8080`.
    public let text: String
    /// `text` as a URL.
    public let url: URL

    /// Nil when `text` is not an absolute `http` or `https` URL with a host.
    public init?(_ text: String) {
        guard var components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        components.host = host.lowercased()
        components.query = nil
        components.fragment = nil
        while components.path.hasSuffix("/") { components.path.removeLast() }
        guard let normalised = components.string, let url = components.url else { return nil }
        self.text = normalised
        self.url = url
    }

    public var description: String { text }
}
