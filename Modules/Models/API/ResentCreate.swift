import Foundation

/// A create sent again because the answer to its first send never came (api-v1 §7, "Re-sends of creates";
/// sync-engine R15). The first send may have been taken by a server whose file was then put back from a copy that
/// never saw it: that copy takes the re-send as a new write, and without a date it would begin the entity's
/// incarnation at the re-send — after another device's delete of the entity the first send made, which a give-back
/// then loses to it (api-v1 §15.1). The re-send says when its creates were queued, and the server records the
/// entity as created then.
public enum ResentCreate {
    /// The header of a re-sent create or batch: when its creates were queued on the device (the latest of them),
    /// RFC 3339 with milliseconds.
    public static let headerName = "Trendy-Queued-At"

    /// The time a server records for a create it takes from a re-send: when it was queued, never after the server's
    /// own clock (a device's clock may run ahead).
    public static func dated(queuedAt: Int64, now: Int64) -> Int64 { min(queuedAt, now) }
}
