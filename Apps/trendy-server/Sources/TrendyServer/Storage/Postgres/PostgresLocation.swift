import Foundation
import NIOSSL
import PostgresNIO

/// Where the PostgreSQL database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…]`, as libpq and
/// every hosting provider write it. `?host=/run/postgresql` (a directory) connects over that Unix socket;
/// `?schema=NAME` keeps the tables in that schema (created when missing), so deployments can share a database.
public struct PostgresLocation: Sendable, Hashable {
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    /// The socket's directory; when set, `host` and `port` only name the socket file (`.s.PGSQL.PORT`).
    public var socketDirectory: String?
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var schema: String?

    /// Parses a URL; the error says which part is wrong.
    public init(url text: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: text),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else { throw .invalidPostgresURL(text, "it must look like postgres://USER:PASSWORD@HOST:PORT/DATABASE") }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        guard let user = components.user, !user.isEmpty else {
            throw .invalidPostgresURL(Self.redact(text), "it names no user (postgres://USER@HOST/DATABASE)")
        }
        username = user
        password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else {
            throw .invalidPostgresURL(Self.redact(text), "it names no database (postgres://USER@HOST/DATABASE)")
        }
        database = path
        guard let mode = TLSMode(rawValue: query["sslmode"] ?? "prefer") else {
            throw .invalidPostgresURL(Self.redact(text), "sslmode must be disable, prefer or require")
        }
        tls = mode
        schema = query["schema"].flatMap { $0.isEmpty ? nil : $0 }
        if let schema,
            !schema.utf8.allSatisfy({
                $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
            })
        {
            throw .invalidPostgresURL(Self.redact(text), "schema must be lowercase letters, digits and _")
        }
    }

    /// The whole URL, password included, in the form `init(url:)` reads: for handing the location to another
    /// process (a second instance in a test).
    public var url: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = username
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        components.queryItems =
            [URLQueryItem(name: "sslmode", value: tls.rawValue)]
            + [
                socketDirectory.map { URLQueryItem(name: "host", value: $0) },
                schema.map {
                    URLQueryItem(name: "schema", value: $0)
                },
            ].compactMap { $0 }
        return components.string ?? redacted
    }

    /// The URL without its password, for messages and logs.
    public var redacted: String {
        let query = [socketDirectory.map { "host=\($0)" }, schema.map { "schema=\($0)" }].compactMap { $0 }
        return "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    static func redact(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }

    var clientConfiguration: PostgresClient.Configuration {
        var configuration = baseConfiguration
        // A run-time parameter in the startup message: every connection resolves the tables in `schema`.
        if let schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        return configuration
    }

    private var baseConfiguration: PostgresClient.Configuration {
        if let socketDirectory {
            return PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password,
                database: database)
        }
        let mode: PostgresClient.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: mode)
    }
}
