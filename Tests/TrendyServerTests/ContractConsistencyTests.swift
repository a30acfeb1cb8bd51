import Foundation
import HTTPTypes
import Models
import Testing
import TrendyServerTesting

@testable import TrendyServer

/// The places that state the contract agree — docs/spec's endpoint table with the router (and the
/// router with docs/openapi.yaml: `OpenAPITests`), the server's flags with docs/server.md, and the two schemas
/// (SQLite, PostgreSQL) with each other, table by table and column by column.
@Suite("Contract consistency")
struct ContractConsistencyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("api-v1 §1's endpoint table lists exactly the routes the server serves")
    func specRoutesAreTheRouters() throws {
        let spec = try Self.text("docs/spec/api-v1.md")
        let table = try #require(spec.range(of: "## 1. Endpoint table")).upperBound
        let end = try #require(spec[table...].range(of: "\n## ")).lowerBound
        var documented: Set<String> = []
        for row in spec[table..<end].split(separator: "\n")
        where row.hasPrefix("| GET") || row.hasPrefix("| POST")
            || row.hasPrefix("| PUT") || row.hasPrefix("| DELETE")
        {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 4, !cells[4].hasPrefix("optional") else { continue }
            var path = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            if let query = path.firstIndex(where: { $0 == "?" || $0 == "[" }) { path = String(path[..<query]) }
            documented.insert(cells[0] + " " + path.replacingOccurrences(of: "{id}", with: ":id"))
        }
        var served = Set(Routes.all.map { "\($0.method.rawValue) \($0.path)" })
        served.insert("GET /health")
        served.formUnion(Routes.outsideTransactions)
        #expect(documented.count > 20, "the table was read: \(documented.count) rows")
        #expect(
            documented == served,
            "only in the spec: \(documented.subtracting(served)); only served: \(served.subtracting(documented))")
    }

    @Test("every flag of trendy-server serve --help is in docs/server.md's table, and every flag there exists")
    func serverFlagsAreDocumented() async throws {
        let help = try await ChildProcess.run("trendy-server", ["serve", "--help"], environment: ["COLUMNS": "200"])
        let flags = Set(help.stdout.matches(of: /--([a-z0-9-]+)/).map { String($0.1) }).subtracting(["help", "version"])
        let page = try Self.text("docs/server.md")
        let options = try #require(page.range(of: "| Option |")).lowerBound
        let tableEnd = try #require(page[options...].range(of: "\n\n")).lowerBound
        let documented = Set(page[options..<tableEnd].matches(of: /`--([a-z0-9-]+)/).map { String($0.1) })
        // Test-only flags are documented in their own section of the page.
        let faults = Set(page.matches(of: /--(fault-[a-z0-9-]+)/).map { String($0.1) })
        #expect(flags.count > 20, "the help was read: \(flags.sorted())")
        #expect(
            flags.subtracting(documented).subtracting(faults).isEmpty,
            "flags missing from docs/server.md: \(flags.subtracting(documented).subtracting(faults).sorted())")
        #expect(
            documented.subtracting(flags).isEmpty,
            "docs/server.md names flags the server does not have: \(documented.subtracting(flags).sorted())")
    }

    /// Table → columns of every `CREATE TABLE` in a schema source file, with the columns later migrations add.
    static func tables(in source: String) -> [String: Set<String>] {
        var tables: [String: Set<String>] = [:]
        for match in source.matches(of: /CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+) \(/) {
            let name = String(match.1)
            if name == "trendy_migrations" { continue }
            var depth = 1
            var index = match.range.upperBound
            var body = ""
            while index < source.endIndex, depth > 0 {
                let character = source[index]
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if depth > 0 { body.append(character) }
                index = source.index(after: index)
            }
            var columns: Set<String> = []
            var level = 0
            var part = ""
            for character in body + "," {
                if character == "(" { level += 1 }
                if character == ")" { level -= 1 }
                if character == "," && level == 0 {
                    let word =
                        part.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").first.map(
                            String.init) ?? ""
                    if !["UNIQUE", "PRIMARY", "FOREIGN", "CHECK", "CONSTRAINT", ""].contains(word) {
                        columns.insert(word)
                    }
                    part = ""
                } else {
                    part.append(character)
                }
            }
            tables[name] = columns
        }
        for match in source.matches(of: /ALTER TABLE ([a-z_]+) ADD COLUMN ([a-z_]+)/) {
            tables[String(match.1), default: []].insert(String(match.2))
        }
        return tables
    }

    @Test("the SQLite and PostgreSQL schemas have the same tables with the same columns")
    func schemasAgree() throws {
        let sqlite = Self.tables(
            in: try Self.text("Apps/trendy-server/Sources/TrendyServer/Storage/SQLite/SQLiteSchema.swift"))
        let postgres = Self.tables(
            in: try Self.text("Apps/trendy-server/Sources/TrendyServer/Storage/Postgres/PostgresSchema.swift"))
        #expect(sqlite.count >= 8 && sqlite["events"]?.contains("healthkit_category") == true, "\(sqlite.keys)")
        #expect(Set(sqlite.keys) == Set(postgres.keys))
        for (table, columns) in sqlite {
            #expect(
                postgres[table] == columns,
                "\(table): SQLite \(columns.sorted()), PostgreSQL \(postgres[table]?.sorted() ?? [])")
        }
    }

    @Test("every field of the field tables has its column on the server (both schemas) and on the device")
    func fieldTablesHaveColumns() throws {
        let server = Self.tables(
            in: try Self.text("Apps/trendy-server/Sources/TrendyServer/Storage/SQLite/SQLiteSchema.swift"))
        let device = Self.tables(in: try Self.text("Modules/Persistence/Database/Schema.swift"))
        let tables: [(server: String, device: String, keys: [String])] = [
            ("event_types", "event_type", EventTypeFields.keys),
            ("geofences", "geofence", GeofenceFields.keys),
            ("property_definitions", "property_definition", PropertyDefinitionFields.keys),
            ("events", "event", EventDetails.keys),
        ]
        for (serverTable, deviceTable, keys) in tables {
            let missingOnServer = Set(keys).subtracting(server[serverTable] ?? [])
            let missingOnDevice = Set(keys).subtracting(device[deviceTable] ?? [])
            #expect(missingOnServer.isEmpty, "\(serverTable) lacks \(missingOnServer.sorted())")
            #expect(missingOnDevice.isEmpty, "\(deviceTable) lacks \(missingOnDevice.sorted())")
        }
    }
}
