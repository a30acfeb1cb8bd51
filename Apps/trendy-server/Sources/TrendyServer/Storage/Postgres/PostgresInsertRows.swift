import Foundation
import Synchronization

/// Single-row INSERTs of one transaction, held and sent as multi-row INSERTs.
///
/// A batch of 500 events is 1 000 single-row INSERTs (the event and its feed row), each parsed and planned by
/// PostgreSQL. Held here, they go out as one INSERT per table with all the rows, in the order they were made (so
/// feed ids follow the batch's order). Only `INSERT INTO t (…) VALUES (?, …, ?)` with nothing after the values is
/// held; any other statement, any read, and COMMIT send what is held first, so every statement still sees every
/// earlier write.
struct PostgresInsertRows {
    /// What a held statement looks like: the text before its values, and its number of columns.
    struct Shape: Hashable {
        let head: String
        let columns: Int
    }

    private var shapes: [Shape] = []
    private var rows: [Shape: [[any SQLValueConvertible]]] = [:]
    private var heldValues = 0

    /// PostgreSQL takes at most 65 535 parameters in one statement.
    static let parameterLimit = 60_000

    var isEmpty: Bool { heldValues == 0 }

    /// Holds the row when `sql` is a plain single-row INSERT; false (nothing held) otherwise.
    mutating func hold(_ sql: String, _ arguments: [any SQLValueConvertible]) -> Bool {
        guard let shape = Self.shape(of: sql), shape.columns == arguments.count else { return false }
        if rows[shape] == nil { shapes.append(shape) }
        rows[shape, default: []].append(arguments)
        heldValues += arguments.count
        return true
    }

    /// True when the held rows should go out before more are held.
    var isFull: Bool { heldValues >= Self.parameterLimit }

    /// The held rows as multi-row INSERTs with numbered placeholders (`$1`…), in the order their tables were first
    /// written; empties the holder.
    mutating func take() -> [(sql: String, arguments: [any SQLValueConvertible])] {
        defer {
            shapes.removeAll()
            rows.removeAll()
            heldValues = 0
        }
        var statements: [(sql: String, arguments: [any SQLValueConvertible])] = []
        for shape in shapes {
            let all = rows[shape] ?? []
            let perStatement = max(1, Self.parameterLimit / shape.columns)
            var start = 0
            while start < all.count {
                let chunk = all[start..<min(all.count, start + perStatement)]
                var sql = shape.head
                var arguments: [any SQLValueConvertible] = []
                arguments.reserveCapacity(chunk.count * shape.columns)
                for (index, row) in chunk.enumerated() {
                    sql += index == 0 ? "(" : ", ("
                    for column in 0..<shape.columns {
                        if column > 0 { sql += ", " }
                        sql += "$\(arguments.count + 1)"
                        arguments.append(row[column])
                    }
                    sql += ")"
                }
                statements.append((sql, arguments))
                start += perStatement
            }
        }
        return statements
    }

    private static let known = Mutex<[String: Shape?]>([:])

    /// The shape of a plain single-row INSERT, or nil. Each distinct statement is examined once.
    static func shape(of sql: String) -> Shape? {
        if let cached = known.withLock({ $0[sql] }) { return cached }
        let shape = examine(sql)
        known.withLock { $0[sql] = shape }
        return shape
    }

    private static func examine(_ sql: String) -> Shape? {
        let text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.uppercased().hasPrefix("INSERT INTO"), let values = text.range(of: "VALUES", options: .backwards)
        else { return nil }
        let head = text[..<values.lowerBound]
        guard !head.uppercased().contains("SELECT") else { return nil }
        let tail = text[values.upperBound...].filter { !$0.isWhitespace }
        guard tail.hasPrefix("("), tail.hasSuffix(")") else { return nil }
        let inner = tail.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard !inner.isEmpty, inner.allSatisfy({ $0 == "?" }) else { return nil }
        return Shape(head: head + "VALUES ", columns: inner.count)
    }
}
