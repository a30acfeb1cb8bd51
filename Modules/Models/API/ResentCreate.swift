import Foundation

/// A create sent again because the answer to its first send never came (api-v1 §7, "Re-sends of creates";
/// sync-engine R15). The first send may have been taken by a server whose file was then put back from a copy that
/// never saw it: that copy takes the re-send as a new write, and without a date it would begin the entity's
/// incarnation at the re-send — after another device's delete of the entity the first send made, which a give-back
/// then loses to it (api-v1 §15.1). The re-send says how long its creates have been queued, and the server records
/// the entity as created that long before its own now.
///
/// A duration, not a time: the device measures it with its own clock alone, so a clock set wrong on the device
/// moves nothing on the server, whose deletes are dated by the server's clock.
public enum ResentCreate {
    /// The header of a re-sent create or batch: how long its creates had been queued on the device when it was sent
    /// (the most recently queued of them), in whole milliseconds.
    public static let headerName = "Trendy-Queued-For"

    /// The header's value for creates queued at `queuedAt` and sent at `now`, both by the device's clock: never
    /// negative (a clock set back since the queue).
    public static func headerValue(queuedAt: Date, now: Date) -> String {
        String(max(0, now.millisecondsSince1970 - queuedAt.millisecondsSince1970))
    }

    /// The header's milliseconds; nil for anything but a whole number of them, zero or more.
    public static func queuedFor(headerValue: String) -> Int64? {
        guard let milliseconds = Int64(headerValue), milliseconds >= 0 else { return nil }
        return milliseconds
    }

    /// The time a server records for a create it takes from a re-send queued `queuedFor` milliseconds before it was
    /// sent: that long before the server's `now`.
    public static func dated(queuedFor: Int64, now: Int64) -> Int64 { now - max(0, queuedFor) }
}
