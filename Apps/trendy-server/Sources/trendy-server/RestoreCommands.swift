import ArgumentParser
import Foundation
import Logging
import Models
import TrendyServer

/// `trendy-server backup`: an online copy of the SQLite file (api-v1 §15).
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database while the server serves it; the copy starts a new history when restored.",
        discussion: """
            Example:
              trendy-server backup --db ~/trendy/server.sqlite ~/backups/trendy-$(date +%F).sqlite

            The output is written beside itself and renamed into place: it is the old file or the
            new one, never half. For PostgreSQL use pg_dump (docs/server.md, "Backups and restores").
            """)

    @OptionGroup var database: MaintainedDatabase
    @Argument(help: "The backup file to write (replaced when it exists).") var output: String

    func run() throws {
        let path = try database.sqlitePath(for: "backup")
        try reportingRefusal {
            let backup = try SQLiteBackups.backUp(database: path, to: output, now: Date.init)
            print(
                "backed up \(path) to \(backup.path) (\(backup.bytes) bytes), taken at "
                    + RFC3339.string(from: backup.takenAt))
        }
    }
}

/// `trendy-server restore`: puts a backup in place of the SQLite file while no server serves it.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup in place of the SQLite database (the server must be stopped).",
        discussion: """
            Example:
              trendy-server restore --db ~/trendy/server.sqlite ~/backups/trendy-2026-11-27.sqlite

            The database starts a new history: every device that syncs next gives back what it holds
            and the backup lacks. The replaced file is kept as DB.before-restore.
            """)

    @OptionGroup var database: MaintainedDatabase
    @Argument(help: "The backup to restore (made by trendy-server backup, or any copy of the server's file).")
    var backup: String

    func run() throws {
        let path = try database.sqlitePath(for: "restore")
        try reportingRefusal {
            let restore = try SQLiteBackups.restore(database: path, from: backup, now: Date.init)
            print("restored \(path) from \(backup); \(describe(restore.history))")
            if let kept = restore.keptAt { print("the replaced database is kept at \(kept)") }
        }
    }
}

/// `trendy-server mark-restored`: a new history for a database put back by other means.
struct MarkRestoredCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-restored",
        abstract: "Start a new history on a database put back from a backup by hand or with pg_restore.",
        discussion: """
            Examples:
              pg_restore --clean -d trendy trendy.dump && trendy-server mark-restored --postgres URL
              cp copy.sqlite server.sqlite && trendy-server mark-restored --db server.sqlite

            Run it while no server serves the database (every instance stopped).
            """)

    @OptionGroup var database: MaintainedDatabase
    @Option(
        parsing: .unconditional,
        help: "When the backup was taken (RFC 3339, e.g. 2026-11-27T03:00:00Z), if known.")
    var backupTakenAt: String?

    func validate() throws {
        if let backupTakenAt, RFC3339.date(from: backupTakenAt) == nil {
            throw ValidationError("--backup-taken-at must be an RFC 3339 time, e.g. 2026-11-27T03:00:00Z")
        }
    }

    func run() async throws {
        let taken = backupTakenAt.flatMap(RFC3339.date(from:))
        if let url = database.postgresURL {
            let location: PostgresLocation
            do throws(ConfigurationError) {
                location = try PostgresLocation(url: url)
            } catch {
                throw ValidationError(error.description)
            }
            try await ExitStatus.reporting {
                let history = try await PostgresRestores.markRestored(
                    location, backupTakenAt: taken, now: Date(), logger: Logger(label: "trendy-server"))
                print("marked \(location.redacted) restored; \(describe(history))")
            }
            return
        }
        let path = try database.sqlitePath(for: "mark-restored")
        try reportingRefusal {
            let history = try SQLiteBackups.markRestored(database: path, backupTakenAt: taken, now: Date.init)
            print("marked \(path) restored; \(describe(history))")
        }
    }
}

/// The database a maintenance command works on: `--db` (the serve default) or `--postgres`.
struct MaintainedDatabase: ParsableArguments {
    @Option(parsing: .unconditional, help: "SQLite database file (default: $XDG_DATA_HOME/trendy/server.sqlite).")
    var db: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "PostgreSQL database: postgres://USER:PASSWORD@HOST:PORT/DATABASE.",
            discussion: "Also read from TRENDY_DATABASE_URL."))
    var postgres: String?

    func validate() throws {
        if db != nil && postgres != nil { throw ValidationError("choose one database: --db FILE or --postgres URL") }
    }

    /// `--postgres`, else `TRENDY_DATABASE_URL` unless `--db` is given.
    var postgresURL: String? {
        if let postgres { return postgres }
        guard db == nil else { return nil }
        return ProcessInfo.processInfo.environment["TRENDY_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The SQLite file; a PostgreSQL database is a usage error that names pg_dump and pg_restore.
    func sqlitePath(for command: String) throws -> String {
        if postgresURL != nil { throw ValidationError(BackupRefused.notSQLite("trendy-server \(command)").description) }
        return db ?? ServeCommand.defaultDatabasePath
    }
}

/// "history ID begins", with the backup's time when known.
private func describe(_ history: ServerHistory) -> String {
    let backup = history.backupTakenAt.map { ", from a backup taken at \(RFC3339.string(from: $0))" } ?? ""
    return "history \(history.id) begins\(backup)"
}

/// Runs `body`; a refusal or a database too new is said on stderr with its exit status (`ExitStatus`), and any
/// other failure midway as EX_IOERR: nothing was replaced.
private func reportingRefusal(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        if let status = ExitStatus.of(error) {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(status)
        }
        // SQLite or the file system refused midway (a full disk, a folder that is not there): nothing was replaced.
        FileHandle.standardError.write(Data("error: \(error); nothing was replaced\n".utf8))
        throw ExitCode(74)
    }
}

/// `trendy-server compact`: compacts the change log now (api-v1 §6.8), as `--changelog-compact-days` does every ten
/// minutes while serving.
struct CompactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Keep only the newest change of each entity among the older changes of the change log.",
        discussion: """
            Examples:
              trendy-server compact --db ~/trendy/server.sqlite --older-than-days 30
              trendy-server compact --postgres URL --older-than-days 30

            Runs beside the servers that serve the database: it deletes in short transactions, and keeps
            the change at the position of every device seen within --device-expiry-days, which resumes
            with an incremental pull (docs/server.md, "Compaction").
            """)

    @OptionGroup var database: MaintainedDatabase
    @Option(
        parsing: .unconditional,
        help: "Compact below the changes older than this many days (0: every change but each entity's newest).")
    var olderThanDays: Int
    @Option(
        parsing: .unconditional,
        help: "Keep the changes at the position of every device seen within this many days (the server's setting).")
    var deviceExpiryDays = ServerConfiguration.defaultDeviceExpiryDays

    func validate() throws {
        guard (0...36_500).contains(olderThanDays) else {
            throw ValidationError("--older-than-days must be 0–36500 days")
        }
        guard (1...36_500).contains(deviceExpiryDays) else {
            throw ValidationError("--device-expiry-days must be 1–36500 days")
        }
    }

    func run() async throws {
        let storage: ServerConfiguration.Storage
        let name: String
        if let url = database.postgresURL {
            do throws(ConfigurationError) {
                let location = try PostgresLocation(url: url)
                (storage, name) = (.postgres(location), location.redacted)
            } catch {
                throw ValidationError(error.description)
            }
        } else {
            let path = database.db ?? ServeCommand.defaultDatabasePath
            guard FileManager.default.fileExists(atPath: path) else {
                throw ValidationError("no database at \(path); pass the server's file with --db")
            }
            (storage, name) = (.file(path: path), path)
        }
        // Everything written up to now counts with 0 days: the cutoff is a millisecond past it.
        let cutoff = Date().millisecondsSince1970 - Int64(olderThanDays) * 86_400_000 + 1
        try await ExitStatus.reporting {
            let report = try await TrendyServer.compactChangeLog(
                in: storage, writtenBefore: cutoff,
                devicesSeenSince: Date().millisecondsSince1970 - Int64(deviceExpiryDays) * 86_400_000)
            print(
                "compacted \(name): removed \(report.removed) changes of \(report.users) users; the longest write "
                    + "transaction took \(String(format: "%.1f", report.longestWriteMilliseconds)) ms")
        }
    }
}
