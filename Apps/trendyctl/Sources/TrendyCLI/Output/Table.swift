import Foundation

/// A plain text table: a header row and left-aligned columns two spaces apart; no line ends in spaces. A table stays
/// a table whatever its cells hold: line breaks, tabs and other control characters are shown escaped (`\n`, `\t`),
/// and a cell longer than `maximumCellWidth` is cut with `…` unless `--wide`.
struct Table {
    let headers: [String]
    let rows: [[String]]
    static let maximumCellWidth = 48

    /// A table of `items`, one row each, its cells made by `row`.
    init<Item>(_ headers: String..., rows items: [Item], _ row: (Item) -> [String]) {
        self.headers = headers
        rows = items.map(row)
    }

    /// `text` on one line: control characters escaped; cut to `maximumCellWidth` characters unless `wide`.
    static func cell(_ text: String, wide: Bool) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case _ where scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}":
                shown += "\\u{\(String(scalar.value, radix: 16))}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        guard !wide, shown.count > maximumCellWidth else { return shown }
        return String(shown.prefix(maximumCellWidth - 1)) + "…"
    }

    func render(_ console: Console) {
        let rows = rows.map { $0.map { Self.cell($0, wide: console.wide) } }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        console.out(console.emphasis(line(headers)))
        for row in rows { console.out(line(row)) }
    }
}

/// One entity as `label: value` lines, labels aligned.
struct Record {
    private(set) var fields: [(String, String)] = []

    mutating func add(_ label: String, _ value: String?) {
        if let value { fields.append((label, value)) }
    }

    /// Values are shown whole (a record is the place to read a long note), line breaks escaped as in tables.
    func render(_ console: Console) {
        let width = fields.map(\.0.count).max() ?? 0
        for (label, value) in fields {
            console.out(
                console.dim(label.padding(toLength: width, withPad: " ", startingAt: 0)) + "  "
                    + Table.cell(value, wide: true))
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
