import Foundation
import Logging

/// `--verbose`: each request the client sends, one line on stderr (`GET /api/v1/changes?since=5&limit=500 200
/// 3.1 ms`), as `APIClient` logs it at debug level; never a header, so never the token.
struct RequestLog: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    static func logger() -> Logger {
        Logger(label: "trendyctl.requests") { _ in RequestLog() }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        FileHandle.standardError.write(Data("trendyctl: \(event.message)\n".utf8))
    }
}
