import Testing

@testable import TrendyServer

/// Single-row INSERTs held and sent as multi-row INSERTs (`PostgresInsertRows`, docs/history/performance.md).
@Suite("PostgreSQL multi-row inserts")
struct PostgresInsertRowsTests {
    @Test("only a plain single-row INSERT is held; upserts, RETURNING, INSERT … SELECT and expressions are not")
    func shapes() {
        let plain = "INSERT INTO changes (user_id, data)\n    VALUES (?, ?)"
        #expect(
            PostgresInsertRows.shape(of: plain)
                == .init(head: "INSERT INTO changes (user_id, data)\n    VALUES ", columns: 2))
        for sql in [
            "INSERT INTO t (a) VALUES (?) ON CONFLICT(a) DO NOTHING", "INSERT INTO t (a) VALUES (?) RETURNING a",
            "INSERT INTO t (a) SELECT a FROM u WHERE b = ?", "INSERT INTO t (a, b) VALUES (?, 1)",
            "UPDATE t SET a = ?", "SELECT ?",
        ] {
            #expect(PostgresInsertRows.shape(of: sql) == nil, "\(sql)")
        }
    }

    @Test("held rows go out per table in first-written order, rows in order, numbered, split under the limit")
    func take() {
        var held = PostgresInsertRows()
        let answers = [
            held.hold("INSERT INTO events (id, n) VALUES (?, ?)", ["e1", 1]),
            held.hold("INSERT INTO changes (id) VALUES (?)", ["c1"]),
            held.hold("INSERT INTO events (id, n) VALUES (?, ?)", ["e2", 2]),
            // A row must fill its columns.
            held.hold("INSERT INTO events (id, n) VALUES (?, ?)", ["wrong count"]),
        ]
        #expect(answers == [true, true, true, false])
        let statements = held.take()
        #expect(
            statements.map(\.sql) == [
                "INSERT INTO events (id, n) VALUES ($1, $2), ($3, $4)", "INSERT INTO changes (id) VALUES ($1)",
            ])
        #expect(statements.first?.arguments.map { "\($0)" } == ["e1", "1", "e2", "2"])
        #expect(held.isEmpty)
        let none = held.take()
        #expect(none.isEmpty)

        var many = PostgresInsertRows()
        for index in 0..<(PostgresInsertRows.parameterLimit / 2 + 1) {
            _ = many.hold("INSERT INTO t (a, b) VALUES (?, ?)", [index, index])
        }
        #expect(many.isFull)
        let split = many.take()
        #expect(split.count == 2 && split.allSatisfy { $0.arguments.count <= PostgresInsertRows.parameterLimit })
    }
}
