import Foundation
import Models

/// Errors of a `DataStoreProtocol` implementation. Each message says what went wrong and what to do.
public enum DataStoreError: Error, Sendable, Equatable {
    /// `mark…Synced` on a row that does not exist.
    case notFound(MutationEntityType, id: String)
    /// `insert…` of an id the table already holds.
    case alreadyExists(MutationEntityType, id: String)
    /// A create after a sent create or an update of the same entity (sync-engine §1.7).
    case invalidSequence(MutationEntityType, entityId: String, operation: MutationOperation)
    /// A create or update of an entity whose delete is queued (sync-engine §1.7).
    case entityDeleted(MutationEntityType, entityId: String)
    /// `insertPendingMutation` clashing with the unique key (entity type, entity id, operation).
    case duplicateMutation(MutationEntityType, entityId: String, operation: MutationOperation)
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// The file cannot be opened or created: it is a folder, its folder cannot be made, or SQLite cannot open it.
    case cannotOpen(path: String, reason: String)
    /// SQLite found the file damaged (`SQLITE_CORRUPT`): a page or the WAL no longer holds what it should. The
    /// statement failed and its transaction rolled back, so nothing more was written.
    case damaged(path: String, detail: String)
    /// The database was migrated by a newer version of this code.
    case schemaTooNew(path: String, unknownMigrations: [String])
    /// Another unit of work held the database longer than the busy timeout.
    case busy(seconds: Double)
    /// A stored payload or value could not be encoded or decoded.
    case invalidData(String)
    /// Any other SQLite failure, with SQLite's message.
    case storage(String)
}

extension DataStoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notFound(let type, let id):
            "no \(type.rawValue) with id \(id) in the local database"
        case .alreadyExists(let type, let id):
            "the local database already holds \(type.rawValue) \(id); generate a new id for a new entity"
        case .invalidSequence(let type, let id, let operation):
            "cannot queue a \(operation.rawValue) of \(type.rawValue) \(id) after the changes already queued for it"
        case .entityDeleted(let type, let id):
            "\(type.rawValue) \(id) is deleted locally; its delete is waiting to be synced"
        case .duplicateMutation(let type, let id, let operation):
            "a \(operation.rawValue) of \(type.rawValue) \(id) is already queued"
        case .notADatabase(let path):
            "\(path) is not a Trendy database (not SQLite); move it away or pass another path with --db"
        case .cannotOpen(let path, let reason):
            "cannot open \(path) as a database (\(reason)); pass another path with --db"
        case .damaged(let path, let detail):
            "\(path) is damaged (SQLite: \(detail)); nothing more was written to it. Keep a copy of the file, then "
                + "restore it from a backup, or move it away and run `trendyctl sync --full` for a new database "
                + "holding the server's data (changes it had not pushed stay in the copy only)"
        case .schemaTooNew(let path, let unknown):
            "\(path) was written by a newer version (migrations \(unknown.joined(separator: ", "))); "
                + "upgrade trendy or use another database"
        case .busy(let seconds):
            "the database stayed locked for \(seconds) s by another writer; retry when it finishes"
        case .invalidData(let message):
            "invalid stored data: \(message)"
        case .storage(let message):
            "database error: \(message)"
        }
    }
}

extension DataStoreError: LocalizedError {
    public var errorDescription: String? { description }
}
