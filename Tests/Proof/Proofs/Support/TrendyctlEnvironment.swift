import Foundation
import Models

/// The environment `trendyctl` runs in as one user of its own: database, config and token file under `home`, so
/// nothing of the machine is read or written; with `server`, logged in to it through `TRENDY_TOKEN`.
func trendyctlEnvironment(home: URL, database: String, server: ProofServer? = nil) -> [String: String] {
    trendyctlEnvironment(home: home, database: database, root: server?.root, token: server?.token)
}

/// The same, logged in to `root` with `token` (a device behind the proof's balancer reaches its instance through
/// a lane of its own).
func trendyctlEnvironment(home: URL, database: String, root: ServerRoot?, token: String?) -> [String: String] {
    var environment = [
        "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
        "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "TRENDY_DB": database,
        "TRENDY_CONFIG": home.appendingPathComponent("config.toml").path,
        "TRENDY_TOKEN_FILE": home.appendingPathComponent("token").path, "TZ": "UTC",
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
    ]
    if let root, let token {
        environment["TRENDY_SERVER"] = root.url.absoluteString
        environment["TRENDY_TOKEN"] = token
    }
    return environment
}
