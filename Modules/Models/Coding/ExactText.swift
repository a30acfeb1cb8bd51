/// Text compared as the server compares it.
extension StringProtocol {
    /// Equal byte for byte in UTF-8, as the server's unique indexes compare names and keys (SQLite's BINARY, and
    /// PostgreSQL's `COLLATE "C"`). Swift's `==` also equates canonically equivalent text ("Café" with `é`, and with
    /// `e` and a combining accent), which the server keeps apart: a uniqueness rule checked with `==` would refuse
    /// what the server accepts, and then refuse every edit of two names the server holds.
    public func isExactly(_ other: some StringProtocol) -> Bool { utf8.elementsEqual(other.utf8) }
}
