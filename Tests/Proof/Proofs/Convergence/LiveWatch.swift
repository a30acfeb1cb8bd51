import Foundation
import Models
import Sync
import Synchronization

/// What a live device (sync-engine R12) did during a run, for the exactly-once check: the cursor after every
/// applied burst and every round, in order. A stream entry applied twice would show as a burst that does not move
/// the cursor past where it already was.
final class LiveWatch: Sendable {
    private let cursors = Mutex<[(applied: Bool, cursor: Int64, changes: Int)]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ engine: SyncEngine) async {
        let activity = await engine.liveActivity()
        let consumer = Task { [weak self] in
            for await event in activity {
                switch event {
                case .applied(let changes, let cursor, _):
                    self?.cursors.withLock { $0.append((true, cursor, changes)) }
                case .round(let report):
                    self?.cursors.withLock { $0.append((false, report.cursor, report.pulled)) }
                case .ended, .polling, .streaming: break
                }
            }
        }
        task.withLock { $0 = consumer }
    }

    /// Entries applied from the stream.
    var streamed: Int { cursors.withLock { $0.filter(\.applied).reduce(0) { $0 + $1.changes } } }

    /// The first burst that did not move the cursor forward, if any: an entry the stream applied again. A round may
    /// leave the cursor where it was (nothing new) or, after a bootstrap, anywhere at or past it.
    func firstRepeat() -> String? {
        let log = cursors.withLock { $0 }
        var highest: Int64 = 0
        for (index, step) in log.enumerated() {
            if step.applied && step.cursor <= highest {
                return "live burst \(index) applied \(step.changes) entries up to \(step.cursor), not past \(highest)"
            }
            highest = max(highest, step.cursor)
        }
        return nil
    }

    deinit { task.withLock { $0 }?.cancel() }
}
