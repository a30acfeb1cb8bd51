import Foundation
import Persistence

/// The file holding the bearer token: created with mode 0600 in a 0700 folder, never echoed anywhere.
enum TokenFile {
    /// The token in the file at `path`, nil when there is none. A file others can read is refused, as ssh refuses
    /// such a key: the token in it may already be known to them.
    static func read(_ path: String) throws(CLIError) -> String? {
        guard let mode = PrivateFiles.mode(of: path) else { return nil }
        if mode & 0o077 != 0 {
            throw CLIError(
                code: "insecure_token_file",
                message: "the token file \(path) can be read by others (mode \(String(mode, radix: 8))); it is not "
                    + "used. Run: chmod 600 \(path)",
                exitCode: 4)
        }
        do {
            let token = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            return token.isEmpty ? nil : token
        } catch {
            throw .failure("cannot read the token file \(path): \(error.localizedDescription)", code: "token")
        }
    }

    /// Replaces the token file atomically; it is 0600 from its creation, so never readable by others, not even
    /// briefly.
    static func write(_ token: String, to path: String) throws(CLIError) {
        do {
            try PrivateFiles.write(Data((token + "\n").utf8), to: path)
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
