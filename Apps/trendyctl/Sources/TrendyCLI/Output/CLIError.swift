import Foundation
import Models
import Protocols
import Sync

/// A failure a command reports: what went wrong, what to do next, and the exit code of spec/trendyctl.md §1.5.
struct CLIError: Error, CustomStringConvertible {
    /// Stable machine name, the `code` of `{"error": {"code", "message"}}`.
    let code: String
    let message: String
    let exitCode: Int32

    var description: String { message }

    /// 64: the command line itself is wrong.
    static func usage(_ message: String) -> CLIError { CLIError(code: "usage", message: message, exitCode: 64) }
    /// 1: an id or name that does not exist.
    static func notFound(_ message: String) -> CLIError { CLIError(code: "not_found", message: message, exitCode: 1) }
    /// 1: local state does not allow it.
    static func failure(_ message: String, code: String = "failure") -> CLIError {
        CLIError(code: code, message: message, exitCode: 1)
    }
    /// 65: an input file that does not parse or validate; nothing was imported.
    static func invalidInput(_ message: String) -> CLIError {
        CLIError(code: "invalid_input", message: message, exitCode: 65)
    }
    /// 4: no token, or the server rejected it.
    static func authentication(_ message: String) -> CLIError {
        CLIError(code: "auth_required", message: message, exitCode: 4)
    }
    /// 75: try again later; nothing was lost.
    static func temporary(_ message: String, code: String = "temporary") -> CLIError {
        CLIError(code: code, message: message, exitCode: 75)
    }

    /// Any error a command let through, as the user should read it.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as EventStoreError:
            switch error {
            case .notFound: return .notFound(error.description)
            case .invalid: return .usage(error.description)
            case .duplicate(let message): return .failure(message, code: "duplicate")
            }
        case let error as DataStoreError:
            switch error {
            case .busy:
                return .temporary("the database is busy (another trendyctl is writing); try again", code: "busy")
            case .notADatabase, .cannotOpen, .schemaTooNew:
                return .failure(error.description, code: "database")
            case .entityDeleted, .invalidSequence:
                return .failure(error.description, code: "conflict")
            default:
                return .failure(error.description, code: "database")
            }
        case let error as SyncEngineError:
            return .failure(error.description, code: "sync")
        default:
            return .failure("\(error)")
        }
    }
}
