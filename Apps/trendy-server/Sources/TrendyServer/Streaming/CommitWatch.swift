import Foundation
import ServiceLifecycle

/// Keeps the change streams moving between this instance's own commits (api-v1 §13): a tick every second for
/// keep-alives, token expiry and revoked devices, and on PostgreSQL the commits of other instances, heard through LISTEN and found
/// again by a once-a-second re-read, so a lost notification delays an entry by a second at most and never loses it.
/// On graceful shutdown it ends every stream: SIGTERM does not wait for idle streams.
struct CommitWatch: Service {
    let streams: ChangeStreams
    let devices: DeviceRegistry
    let storage: any ServerStorage
    /// `TestHooks.hearsCommitNotifications`.
    var hearsNotifications = true

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await storage.listenForCommits { user, changeId in
                        if hearsNotifications { streams.committed(user: user, changeId: changeId) }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        if storage.sharesCommits {
                            await reread()
                            // Revokes made by other instances (api-v1 §16): their devices' streams end at this tick.
                            try? await devices.refreshRevoked()
                        }
                        streams.tick()
                    }
                }
            }
        }
        streams.shutDown()
    }

    /// Each streaming user's latest change id, as the database has it now.
    private func reread() async {
        let users = streams.users
        guard !users.isEmpty else { return }
        let latest = try? await storage.read { db in
            try users.map { user in
                (
                    user,
                    try db.value(Int64.self, sql: "SELECT MAX(id) FROM changes WHERE user_id = ?", arguments: [user])
                )
            }
        }
        for (user, id) in latest ?? [] {
            if let id { streams.committed(user: user, changeId: id) }
        }
    }
}
