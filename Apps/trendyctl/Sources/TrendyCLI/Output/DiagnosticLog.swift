import Foundation
import Logging

/// What the libraries log, as trendyctl shows it on stderr: one line, `trendyctl: message`, warnings and errors
/// marked. The level follows the verbosity: `--quiet` errors only, normally notices and warnings (a rate-limit wait,
/// a refresh that failed), `--verbose` everything, each request included (`APIClient` logs them at debug level:
/// method, path, status, time; never a header, so never the token).
struct DiagnosticLog: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    static func logger(_ label: String, verbosity: Console.Verbosity) -> Logger {
        let level: Logger.Level =
            switch verbosity {
            case .quiet: .error
            case .normal: .notice
            case .verbose: .debug
            }
        return Logger(label: label) { _ in DiagnosticLog(logLevel: level) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let mark = event.level >= .warning ? "\(event.level): " : ""
        FileHandle.standardError.write(Data("trendyctl: \(mark)\(event.message)\n".utf8))
    }
}
