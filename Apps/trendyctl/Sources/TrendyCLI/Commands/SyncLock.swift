import Foundation
import Persistence

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sync per database across processes (sync-engine §3.7): an exclusive `flock` on
/// `<database>.sync-lock`, held while a sync runs. The OS releases it when the process dies.
final class SyncLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// How long a one-off `sync` waits for another process's sync to finish (trendyctl §1.2).
    static let oneOffWait: Duration = .seconds(2)

    /// Takes the lock, waiting while another process holds it: at most `wait` (then exit 75), or until it is free
    /// when `wait` is nil (`--watch` goes on after the other sync). `waiting` is called once if it has to wait.
    /// Cancelling the task stops the wait.
    static func acquire(
        databasePath: String, waitingAtMost wait: Duration?, waiting: () -> Void = {}
    ) async throws(CLIError) -> SyncLock {
        let path = databasePath + ".sync-lock"
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .failure("cannot open the lock file \(path): \(String(cString: strerror(errno)))", code: "lock")
        }
        // 0600 whatever the umask, like every file trendyctl creates (`PrivateFiles`).
        _ = fchmod(descriptor, PrivateFiles.fileMode)
        let deadline = wait.map { ContinuousClock.now + $0 }
        var announced = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .failure("cannot lock \(path): \(reason)", code: "lock")
            }
            if let deadline, ContinuousClock.now >= deadline {
                close(descriptor)
                throw .temporary(
                    "another sync is running on \(databasePath); it holds \(path). Try again when it is done",
                    code: "sync_running")
            }
            if !announced {
                announced = true
                waiting()
            }
            do {
                try await Task.sleep(for: .milliseconds(25))
            } catch {
                close(descriptor)
                throw .temporary("stopped while waiting for another sync on \(databasePath)", code: "sync_running")
            }
        }
        return SyncLock(descriptor: descriptor)
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
