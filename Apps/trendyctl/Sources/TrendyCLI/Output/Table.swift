import Foundation

/// A plain text table: a header row and left-aligned columns two spaces apart; no line ends in spaces. A table stays
/// a table whatever its cells hold: line breaks, tabs and other control characters are shown escaped (`\n`, `\t`),
/// a cell wider than `maximumCellWidth` columns is cut with `…` unless `--wide`, and columns are measured in terminal
/// columns (`DisplayWidth`), so that CJK text and emoji line up and are never cut silently.
struct Table {
    let headers: [String]
    let rows: [[String]]
    static let maximumCellWidth = 48

    /// A table of `items`, one row each, its cells made by `row`.
    init<Item>(_ headers: String..., rows items: [Item], _ row: (Item) -> [String]) {
        self.headers = headers
        rows = items.map(row)
    }

    /// `text` on one line: control characters escaped; cut to `maximumCellWidth` columns unless `wide`.
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
        guard !wide, DisplayWidth.of(shown) > maximumCellWidth else { return shown }
        return DisplayWidth.prefix(shown, columns: maximumCellWidth - 1) + "…"
    }

    func render(_ console: Console) {
        let rows = rows.map { $0.map { Self.cell($0, wide: console.wide) } }
        var widths = headers.map(DisplayWidth.of)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], DisplayWidth.of(cell))
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : DisplayWidth.padded(cell, to: widths[index])
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
        let width = fields.map { DisplayWidth.of($0.0) }.max() ?? 0
        for (label, value) in fields {
            console.out(console.dim(DisplayWidth.padded(label, to: width)) + "  " + Table.cell(value, wide: true))
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
