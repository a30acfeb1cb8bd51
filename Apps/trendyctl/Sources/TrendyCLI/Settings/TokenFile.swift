import Foundation

/// The file holding the bearer token: created with mode 0600 in a 0700 folder, never echoed anywhere.
enum TokenFile {
    static func read(_ path: String) throws(CLIError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let token = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            return token.isEmpty ? nil : token
        } catch {
            throw .failure("cannot read the token file \(path): \(error.localizedDescription)", code: "token")
        }
    }

    static func write(_ token: String, to path: String) throws(CLIError) {
        let url = URL(fileURLWithPath: path)
        let manager = FileManager.default
        do {
            let folder = url.deletingLastPathComponent()
            if !manager.fileExists(atPath: folder.path) {
                try manager.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            // Created 0600 before the token is written, so it is never readable by others, not even briefly.
            if manager.fileExists(atPath: path) { try manager.removeItem(at: url) }
            guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission)
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.write(contentsOf: Data((token + "\n").utf8))
        } catch {
            throw .failure("cannot write the token file \(path): \(error.localizedDescription)", code: "token")
        }
    }

    /// True when a file was removed.
    static func remove(_ path: String) throws(CLIError) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do {
            try FileManager.default.removeItem(atPath: path)
            return true
        } catch {
            throw .failure("cannot remove the token file \(path): \(error.localizedDescription)", code: "token")
        }
    }
}
