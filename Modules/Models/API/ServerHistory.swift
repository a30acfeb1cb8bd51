import Foundation

/// The history a server's database serves, announced in `Trendy-History` (api-v1 §2.1, §15).
///
/// A database keeps one id from its creation until it is put back to a backup; from then on it serves a new id,
/// with the time that backup was taken. A device that sees the id change knows the server may have lost what was
/// acknowledged after that time.
public struct ServerHistory: Sendable, Hashable {
    /// A version-7 UUID, new for every history.
    public var id: String
    /// When the backup this history began from was taken, to the millisecond; nil for a database's first history
    /// and for a restore whose backup time nobody gave.
    public var backupTakenAt: Date?

    /// A history.
    public init(id: String, backupTakenAt: Date? = nil) {
        self.id = id
        self.backupTakenAt = backupTakenAt
    }

    /// The header's name.
    public static let headerName = "Trendy-History"

    /// The parameter that carries `backupTakenAt`.
    static let backupParameter = "backup_taken_at"

    /// `ID` or `ID; backup_taken_at=RFC3339`.
    public var header: String {
        guard let backupTakenAt else { return id }
        return "\(id); \(Self.backupParameter)=\(RFC3339.string(from: backupTakenAt))"
    }

    /// Reads a header value; nil when it is absent or not one this type writes.
    public init?(header: String?) {
        guard let header else { return nil }
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let id = parts.first, !id.isEmpty, id.utf8.count <= 64 else { return nil }
        var backupTakenAt: Date?
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0] == Self.backupParameter, let date = RFC3339.date(from: pair[1]) else {
                return nil
            }
            backupTakenAt = date
        }
        self.init(id: id, backupTakenAt: backupTakenAt)
    }
}
