import Foundation

/// What a server says of a delete it made (api-v1 §6.6): the time it recorded, which a device gives back if the
/// server loses the delete (sync-engine R15) and which orders it against other devices' versions.
public enum DeleteAnswer {
    /// The header of a DELETE's 204: the delete's time, RFC 3339 with milliseconds.
    public static let headerName = "Trendy-Deleted-At"
}
