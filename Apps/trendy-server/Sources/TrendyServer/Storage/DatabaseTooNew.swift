import Models

/// The database holds migrations this server does not know: a newer trendy-server wrote it. Opening it could
/// misread or damage data, so the server refuses to start and says what to do.
public struct DatabaseTooNew: Error, CustomStringConvertible {
    public let location: String
    /// The migrations it has and this server lacks.
    public let unknownMigrations: [String]

    public var description: String {
        "the database \(location) was written by a newer trendy-server (its schema has "
            + "\(unknownMigrations.joined(separator: ", ")), which trendy-server \(TrendyRelease.version) does not "
            + "know); run that version or a later one, or start this one on another database"
    }
}
