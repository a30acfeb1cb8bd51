import Foundation
import Logging
import Models
import Synchronization

/// One JSON object a line on stderr (`--log-format json`), for log collectors: `time` (RFC 3339), `level`,
/// `label`, `message`, then the metadata as string members (`request-id`, `ms`, …).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var members: [String: JSONValue] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            members[key] = .string("\(value)")
        }
        if let error = event.error { members["error"] = .string("\(error)") }
        members["time"] = .string(RFC3339.string(fromMilliseconds: Date().millisecondsSince1970))
        members["level"] = .string(event.level.rawValue)
        members["label"] = .string(label)
        members["message"] = .string(event.message.description)
        write(JSONText.string(.object(members)) + "\n")
    }

    /// Whole lines, one writer at a time, so that lines of concurrent requests never interleave.
    @Sendable public static func standardError(_ line: String) {
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let lock = Mutex(())
}
