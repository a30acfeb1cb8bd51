import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    /// Everything the model holds at one moment, as a file backup of a server's database holds it.
    public struct Backup: Sendable {
        let state: State
        /// When it was taken, by the model's clock.
        public let takenAt: Date
    }

    /// A copy of everything the model holds now.
    public func backUp() -> Backup { Backup(state: state.withLock { $0 }, takenAt: clock.now()) }

    /// Puts `backup` back, as `trendy-server restore` does: what was written since is gone, the change ids drawn
    /// since are drawn again for new writes (api-v1 §6.5), and a new history begins with the backup's time (api-v1 §15)
    /// — unless `announcing` is false, for a file put back by hand without a mark. Open streams are left as they are.
    public func restore(_ backup: Backup, announcing: Bool = true) {
        state.withLock { state in
            let current = state.history
            state = backup.state
            state.history =
                announcing
                ? ServerHistory(id: UUID().uuidString.lowercased(), backupTakenAt: backup.takenAt) : current
        }
    }
}
