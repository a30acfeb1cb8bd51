import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Folders and files that hold one person's data or credentials: folders 0700, files 0600, whatever the umask.
///
/// A umask only removes permission bits, so a permissive one (000) would leave files created with the default
/// 0666 readable by everyone, and a strict one (0777) would leave a new folder unusable; every mode is therefore
/// set explicitly after creating. Existing folders and files keep the mode their owner gave them.
public enum PrivateFiles {
    /// The mode of every folder made: its owner alone may list and enter it.
    public static let folderMode: mode_t = 0o700
    /// The mode of every file made: its owner alone may read and write it.
    public static let fileMode: mode_t = 0o600

    /// Creates `path` and each missing parent, each 0700.
    public static func createFolder(_ path: String) throws {
        var missing: [String] = []
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() {
            if mkdir(folder, folderMode) != 0 && errno != EEXIST { throw posixError(errno, folder) }
            if chmod(folder, folderMode) != 0 { throw posixError(errno, folder) }
        }
    }

    /// Creates an empty file at `path` (and its folder) with mode 0600 unless it exists.
    public static func createFileIfMissing(_ path: String) throws {
        try createFolder((path as NSString).deletingLastPathComponent)
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, fileMode)
        if descriptor < 0 {
            if errno == EEXIST { return }
            throw posixError(errno, path)
        }
        defer { close(descriptor) }
        if fchmod(descriptor, fileMode) != 0 { throw posixError(errno, path) }
    }

    /// Replaces `path` with `data` atomically: a 0600 temporary file in the same folder, flushed, then renamed over
    /// it, so a reader sees the old content or the new, and never a file others can read.
    public static func write(_ data: Data, to path: String) throws {
        try write(to: path) { handle in try handle.write(contentsOf: data) }
    }

    /// As `write(_:to:)`, with the content written piece by piece by `produce` (a long export streams into the
    /// temporary file instead of being held whole); if `produce` throws, `path` is left as it was.
    public static func write(to path: String, _ produce: (FileHandle) throws -> Void) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try createFolder(folder)
        var template = Array(((folder.isEmpty ? "." : folder) + "/.trendy-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else { throw posixError(errno, path) }
        let temporary = String(
            decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            if fchmod(descriptor, fileMode) != 0 { throw posixError(errno, path) }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            try produce(handle)
            if fsync(descriptor) != 0 { throw posixError(errno, path) }
        }
        if rename(temporary, path) != 0 { throw posixError(errno, path) }
        renamed = true
    }

    /// The permission bits of `path`, or nil when it does not exist.
    public static func mode(of path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    private static func posixError(_ code: Int32, _ path: String) -> any Error {
        NSError(
            domain: NSPOSIXErrorDomain, code: Int(code),
            userInfo: [NSLocalizedDescriptionKey: "\(path): \(String(cString: strerror(code)))"])
    }
}
