import ArgumentParser
import Foundation
import Models
import Networking
import Protocols

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "The devices that sync with your account, and revoking one.",
        discussion: """
            Examples:
              trendyctl devices list
              trendyctl devices revoke 0193a5c2      # an id, or the start of one that names a single device

            A revoked device's requests and streams are refused at once; it keeps its local data and its
            queue, and syncs again as a new device after `trendyctl login`.
            """,
        subcommands: [List.self, Revoke.self])

    struct List: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the account's devices, most recently seen first; * marks this one.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: CommandContext) async throws {
            let (client, this) = try DevicesCommand.client(context)
            let list = try await DevicesCommand.asking(client) { try await client.devices() }
            let devices = list.devices
            let json: (APIDevice) -> JSONValue = { DevicesCommand.json($0, this: this) }
            context.console.list(devices, json: json) {
                Table("", "ID", "CLIENT", "LAST SEEN", "BEHIND", "STATUS", rows: devices) { device in
                    [
                        device.id == this ? "*" : "", device.id, device.client, TimeInput.display(device.lastSeenAt),
                        device.cursor == nil ? "not synced" : "\(device.behind) changes", DevicesCommand.status(device),
                    ]
                }
            }
        }
    }

    struct Revoke: TrendyCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "End a device's access and its streams at once.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "The device's id, or the start of one that names a single device.") var id: String

        func run(_ context: CommandContext) async throws {
            let (client, this) = try DevicesCommand.client(context)
            let wanted = id.lowercased()
            let list = try await DevicesCommand.asking(client) { try await client.devices() }
            let matches = list.devices.filter { $0.id.hasPrefix(wanted) }
            guard let device = matches.first, matches.count == 1, let uuid = UUID(uuidString: device.id) else {
                throw matches.isEmpty
                    ? CLIError.notFound("no device \(id) on this account: `trendyctl devices list` shows them")
                    : CLIError.usage("\(id) names \(matches.count) devices; give more of the id")
            }
            try await DevicesCommand.asking(client) { try await client.revokeDevice(id: uuid) }
            if context.console.json {
                context.console.out(json: ["revoked": .string(device.id), "this_device": .bool(device.id == this)])
            }
            context.console.note(
                "revoked \(device.id) (\(device.client))"
                    + (device.id == this
                        ? "; it was this device: `trendyctl login` signs it in again as a new one" : ""))
        }
    }

    /// The server's client, and this device's id: the devices are the server's to list.
    static func client(_ context: CommandContext) throws -> (APIClient, String) {
        _ = try context.settings.requireLogin()
        let container = try context.container()
        guard let client = container.apiClient else {
            throw CLIError.failure("no server is configured: set one with `trendyctl config set server URL`")
        }
        return (client, try container.deviceId())
    }

    /// Runs a request, with the failures a person acts on said plainly.
    @discardableResult
    static func asking<Value>(_ client: APIClient, _ request: () async throws -> Value) async throws -> Value {
        do {
            return try await request()
        } catch let error as NetworkError {
            switch error {
            case .transport(let message):
                throw CLIError.temporary("the server is unreachable (\(message)); try again later", code: "offline")
            case .http(let failure) where failure.status == 401:
                throw CLIError.authentication(
                    client.deviceRevoked
                        ? "this device's access was revoked; sign in again as a new device: "
                            + "`trendyctl login --with-token < token.txt`"
                        : "the server rejected the token: run `trendyctl login --with-token < token.txt`")
            case .http(let failure) where failure.status == 404:
                throw CLIError.failure(
                    "the server does not keep a list of devices (it predates api-v1 §16); upgrade trendy-server",
                    code: "unsupported")
            default:
                throw CLIError.failure("\(error)", code: "server")
            }
        }
    }

    static func status(_ device: APIDevice) -> String {
        if let revoked = device.revokedAt { return "revoked \(TimeInput.display(revoked))" }
        if device.expired { return "expired" }
        return device.streaming ? "live" : "active"
    }

    static func json(_ device: APIDevice, this: String) -> JSONValue {
        [
            "id": .string(device.id), "this_device": .bool(device.id == this), "client": .string(device.client),
            "first_seen_at": .string(RFC3339.string(from: device.firstSeenAt)),
            "last_seen_at": .string(RFC3339.string(from: device.lastSeenAt)),
            "cursor": device.cursor.map { .number(Double($0)) } ?? .null, "behind": .number(Double(device.behind)),
            "revoked_at": device.revokedAt.map { .string(RFC3339.string(from: $0)) } ?? .null,
            "status": .string(status(device)),
        ]
    }
}
