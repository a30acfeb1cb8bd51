import Foundation
import GRDB

/// `--db` names a path that cannot be the server's database file: a folder, a path under a plain file, a file that
/// is not SQLite. Said with the path and the reason at start, before the server listens.
public struct CannotOpenDatabase: Error, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String {
        "cannot open the database \(path) (\(reason)); pass another file with --db, or --in-memory"
    }

    /// Makes the file's folder, or says why it cannot be made.
    static func makeFolder(of path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            // The nearest existing ancestor tells what is in the way: a plain file, or a folder we may not write.
            var ancestor = folder
            var isFolder: ObjCBool = false
            while !FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isFolder), ancestor.path != "/" {
                ancestor.deleteLastPathComponent()
            }
            let reason =
                isFolder.boolValue
                ? "its folder cannot be made in \(ancestor.path)" : "\(ancestor.path) is a file, not a folder"
            throw CannotOpenDatabase(path: path, reason: reason)
        }
    }

    /// SQLite's refusal of the file, in the operator's words.
    static func opening(_ path: String, _ error: any Error) -> CannotOpenDatabase {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return CannotOpenDatabase(path: path, reason: "it is a folder")
        }
        let reason =
            (error as? DatabaseError).map { $0.message ?? "SQLite error \($0.resultCode.rawValue)" } ?? "\(error)"
        return CannotOpenDatabase(path: path, reason: reason)
    }
}
