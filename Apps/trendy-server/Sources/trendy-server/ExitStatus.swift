import ArgumentParser
import Foundation
import TrendyServer

/// The exit statuses (sysexits) of the errors every subcommand may meet, defined once: a database it cannot use is
/// EX_UNAVAILABLE, a file held by another process EX_TEMPFAIL (try again), a bad backup EX_DATAERR.
enum ExitStatus {
    /// The status for `error`, or nil for one the caller handles itself.
    static func of(_ error: any Error) -> Int32? {
        switch error {
        case let refused as BackupRefused:
            switch refused {
            case .missing: 66
            case .notServerDatabase, .damaged: 65
            case .serving, .restoring: 75
            case .cannotWrite: 73
            case .notSQLite: 64
            }
        case is DatabaseTooNew, is CannotOpenDatabase, is StorageUnavailable: 69
        default: nil
        }
    }

    /// Runs `body`; an error with a status of its own is said on stderr and exits with that status.
    static func reporting<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch {
            guard let status = of(error) else { throw error }
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(status)
        }
    }
}
