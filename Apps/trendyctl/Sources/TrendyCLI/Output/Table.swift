import Foundation

/// A plain text table: a header row and left-aligned columns two spaces apart; no line ends in spaces.
struct Table {
    let headers: [String]
    private(set) var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    mutating func add(_ cells: String...) { rows.append(cells) }

    func render(_ console: Console) {
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

    func render(_ console: Console) {
        let width = fields.map(\.0.count).max() ?? 0
        for (label, value) in fields {
            console.out(console.dim(label.padding(toLength: width, withPad: " ", startingAt: 0)) + "  " + value)
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
