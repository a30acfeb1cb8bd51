import Foundation
import Models
import Synchronization

extension InMemoryTrendyServer {
    /// Everything the model holds at one moment, as a file backup of a server's database holds it.
    public struct Backup: Sendable {
        let state: State
    }

    /// A copy of everything the model holds now.
    public func backUp() -> Backup { Backup(state: state.withLock { $0 }) }

    /// Puts `backup` back, as an operator restores a server's database: what was written since is gone, and the
    /// change ids drawn since are drawn again for new writes (api-v1 §6.5). Open streams are left as they are.
    public func restore(_ backup: Backup) { state.withLock { $0 = backup.state } }
}
