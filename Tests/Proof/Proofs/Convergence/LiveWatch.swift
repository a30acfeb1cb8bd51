import Foundation
import Models
import Sync
import Synchronization

/// What a live device (sync-engine R12) did during a run, for the exactly-once check: the cursor after every
/// applied burst and every round, in order. A stream entry applied twice would show as a burst that does not move
/// the cursor past where it already was.
final class LiveWatch: Sendable {
    private enum Step {
        case applied(cursor: Int64, changes: Int)
        case round(cursor: Int64, pulled: Int)
        /// The run put the server back to a backup: its change ids start again below the cursors.
        case serverWentBack
    }

    private let steps = Mutex<[Step]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ engine: SyncEngine) async {
        let activity = await engine.liveActivity()
        let consumer = Task { [weak self] in
            for await event in activity {
                switch event {
                case .applied(let changes, let cursor, _):
                    self?.steps.withLock { $0.append(.applied(cursor: cursor, changes: changes)) }
                case .round(let report):
                    self?.steps.withLock { $0.append(.round(cursor: report.cursor, pulled: report.pulled)) }
                case .ended, .polling, .streaming: break
                }
            }
        }
        task.withLock { $0 = consumer }
    }

    /// Notes that the server went back to a backup (sync-engine R15): the check starts again from there.
    func serverWentBack() { steps.withLock { $0.append(.serverWentBack) } }

    /// Entries applied from the stream.
    var streamed: Int {
        steps.withLock { steps in
            steps.reduce(0) { total, step in
                if case .applied(_, let changes) = step { return total + changes }
                return total
            }
        }
    }

    /// The first burst that did not move the cursor forward, if any: an entry the stream applied again. A round may
    /// leave the cursor where it was (nothing new) or, after a bootstrap, anywhere at or past it; after a restore of
    /// the server the cursors start again, from where each round leaves them.
    func firstRepeat() -> String? {
        let log = steps.withLock { $0 }
        var highest: Int64 = 0
        var wentBack = false
        for (index, step) in log.enumerated() {
            switch step {
            case .applied(let cursor, let changes):
                if cursor <= highest {
                    return "live burst \(index) applied \(changes) entries up to \(cursor), not past \(highest)"
                }
                highest = cursor
            case .round(let cursor, _):
                // Once the server went back, a round may end on the old history's cursor, and the bootstrap that
                // follows on a lower one: each round's cursor is where the device stands.
                highest = wentBack ? cursor : max(highest, cursor)
            case .serverWentBack:
                highest = 0
                wentBack = true
            }
        }
        return nil
    }

    deinit { task.withLock { $0 }?.cancel() }
}
