import Testing
import TrendyServer

/// `--postgres URL` (docs/server.md, "Several instances on PostgreSQL").
@Suite("PostgreSQL URLs")
struct PostgresLocationTests {
    @Test("a libpq URL: user, password, host, port, database, sslmode, socket and schema; the password never shown")
    func parses() throws {
        let location = try PostgresLocation(url: "postgres://trendy:s3cret@db.internal:5433/events?sslmode=require")
        #expect(location.username == "trendy" && location.password == "s3cret")
        #expect(location.host == "db.internal" && location.port == 5433 && location.database == "events")
        #expect(location.tls == .require && location.socketDirectory == nil && location.schema == nil)
        #expect(location.redacted == "postgres://trendy:***@db.internal:5433/events")

        let socket = try PostgresLocation(url: "postgresql://trendy@/events?host=/run/postgresql&schema=team_a")
        #expect(socket.socketDirectory == "/run/postgresql" && socket.schema == "team_a" && socket.tls == .prefer)
        #expect(socket.redacted == "postgres://trendy@127.0.0.1:5432/events?host=/run/postgresql&schema=team_a")
    }

    @Test("`url` reads back as the same location, password and socket included (a second instance is given it)")
    func roundTrips() throws {
        for text in [
            "postgres://trendy:p%40ss%3Aw0rd@db.internal:5433/events?sslmode=require&schema=team_a",
            "postgresql://trendy@/events?host=/run/postgresql",
        ] {
            let location = try PostgresLocation(url: text)
            #expect(try PostgresLocation(url: location.url) == location, "\(location.url)")
        }
        #expect(try PostgresLocation(url: "postgres://u:p%40ss@h/d").password == "p@ss")
    }

    @Test(
        "a URL that is not one says which part is wrong, without its password",
        arguments: [
            ("mysql://u@h/d", "postgres://"), ("postgres://:pw@h/d", "no user"), ("postgres://u:pw@h", "no database"),
            ("postgres://u:pw@h/d?sslmode=verify", "sslmode"), ("postgres://u@h/d?schema=Bad-Name", "schema"),
        ])
    func refuses(_ url: String, _ reason: String) {
        #expect {
            _ = try PostgresLocation(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains(reason) && !text.contains(":pw@")
        }
    }
}
