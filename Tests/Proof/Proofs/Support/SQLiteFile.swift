import Foundation
import GRDB

/// A SQLite file of another process, looked into from outside: row counts while it works, integrity after a crash.
struct SQLiteFile: Sendable {
    let path: String

    init(_ path: String) { self.path = path }

    /// The integer the query answers, or 0 while the file or its schema does not exist yet.
    func count(_ sql: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return try queue.read { try Int.fetchOne($0, sql: sql) } ?? 0
        } catch let error as DatabaseError where error.message?.contains("no such table") == true {
            return 0
        }
    }

    /// Runs one write beside the process that owns the file (a hand edit: WAL lets it in between that process's
    /// transactions); returns how many rows it changed.
    func execute(_ sql: String, arguments: StatementArguments) throws -> Int {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return try queue.write { db in
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }

    /// `PRAGMA integrity_check`: "ok", or the problems it lists.
    func integrityCheck() throws -> String {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let lines = try queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        return lines.joined(separator: "; ")
    }
}
