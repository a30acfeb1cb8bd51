import Foundation

/// One device of an account, as `GET /api/v1/devices` lists it (api-v1 §16).
public struct APIDevice: Sendable, Hashable, Codable {
    /// The id the device sends in `Trendy-Device`, lowercased.
    public var id: String
    /// The client it last said it runs, `name/version`.
    public var client: String
    /// When the server first saw it.
    public var firstSeenAt: Date
    /// When it last made a request.
    public var lastSeenAt: Date
    /// The last change the server sent it (by a pull, a stream, or a bootstrap's latest cursor); nil before any.
    public var cursor: Int64?
    /// The account's changes after `cursor`: how far behind the device is (all of them before its first pull; none
    /// while it streams).
    public var behind: Int64
    /// It holds a change stream open now (api-v1 §13).
    public var streaming: Bool
    /// When it was revoked; nil while it may sync.
    public var revokedAt: Date?
    /// Not seen for `--device-expiry-days`: compaction no longer keeps its position (api-v1 §6.8), and it resumes
    /// with a bootstrap.
    public var expired: Bool

    /// A device as the server lists it.
    public init(
        id: String, client: String, firstSeenAt: Date, lastSeenAt: Date, cursor: Int64?, behind: Int64,
        streaming: Bool, revokedAt: Date?, expired: Bool
    ) {
        self.id = id
        self.client = client
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.cursor = cursor
        self.behind = behind
        self.streaming = streaming
        self.revokedAt = revokedAt
        self.expired = expired
    }

    enum CodingKeys: String, CodingKey {
        case id, client, cursor, behind, streaming, expired
        case firstSeenAt = "first_seen_at"
        case lastSeenAt = "last_seen_at"
        case revokedAt = "revoked_at"
    }
}

/// The answer of `GET /api/v1/devices`: the account's devices, most recently seen first.
public struct DeviceList: Sendable, Hashable, Codable {
    /// The devices, revoked ones included.
    public var devices: [APIDevice]
    /// The account's latest change id, which `behind` is counted up to.
    public var latestCursor: Int64

    /// A list.
    public init(devices: [APIDevice], latestCursor: Int64) {
        self.devices = devices
        self.latestCursor = latestCursor
    }

    enum CodingKeys: String, CodingKey {
        case devices
        case latestCursor = "latest_cursor"
    }
}
