import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sync per database across processes (spec/trendyctl.md §3.7 of the engine spec): an exclusive `flock` on
/// `<database>.sync-lock`, held while a sync runs. The OS releases it when the process dies.
final class SyncLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func acquire(databasePath: String) throws(CLIError) -> SyncLock {
        let path = databasePath + ".sync-lock"
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .failure("cannot open the lock file \(path): \(String(cString: strerror(errno)))", code: "lock")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(descriptor)
            if busy {
                throw .temporary(
                    "another sync is running on \(databasePath); it holds \(path). Try again when it is done",
                    code: "sync_running")
            }
            throw .failure("cannot lock \(path): \(String(cString: strerror(errno)))", code: "lock")
        }
        return SyncLock(descriptor: descriptor)
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
