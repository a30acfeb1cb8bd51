import Foundation

/// A value bound into a statement, in the few storage classes both backends share.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case bool(Bool)
}

/// A Swift value that binds as one `SQLValue`. Arguments are written as array literals of these, as with GRDB.
protocol SQLValueConvertible: Sendable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLValueConvertible {
    var sqlValue: SQLValue { self }
}

extension String: SQLValueConvertible {
    var sqlValue: SQLValue { .text(self) }
}

extension Int64: SQLValueConvertible {
    var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLValueConvertible {
    var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Double: SQLValueConvertible {
    var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLValueConvertible {
    var sqlValue: SQLValue { .bool(self) }
}

extension [UInt8]: SQLValueConvertible {
    var sqlValue: SQLValue { .blob(self) }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// A column read from a `StorageRow`.
protocol StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> Self
}

/// A NULL where the schema promises a value, or a value of another class: the database does not hold what this
/// server wrote.
struct StorageDecodingError: Error, CustomStringConvertible {
    let column: Int
    let expected: String

    var description: String { "storage: column \(column) is not a \(expected)" }
}

extension StorageDecodable {
    fileprivate static func nonNull(_ row: some StorageRow, _ index: Int) throws {
        if row.isNull(index) { throw StorageDecodingError(column: index, expected: "\(Self.self)") }
    }
}

extension String: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> String {
        try nonNull(row, index)
        return row.withText(index) { String(decoding: $0, as: UTF8.self) }
    }
}

extension Int64: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> Int64 {
        try nonNull(row, index)
        return row.int64(index)
    }
}

extension Int: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> Int {
        try nonNull(row, index)
        return Int(row.int64(index))
    }
}

extension Double: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> Double {
        try nonNull(row, index)
        return row.double(index)
    }
}

extension Bool: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> Bool {
        try nonNull(row, index)
        return row.bool(index)
    }
}

extension [UInt8]: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> [UInt8] {
        try nonNull(row, index)
        return row.withBytes(index) { Array($0) }
    }
}

extension Optional: StorageDecodable where Wrapped: StorageDecodable {
    static func decode(_ row: some StorageRow, at index: Int) throws -> Wrapped? {
        row.isNull(index) ? nil : try Wrapped.decode(row, at: index)
    }
}
