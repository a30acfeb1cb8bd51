enum OriginalTimestamps {
    /// The original backend writes times as Go's RFC 3339 with nanoseconds: the fraction without its trailing
    /// zeros, and none when it is zero (api-v1 §12.1 item 13). Our answers always carry three digits
    /// (`2026-01-01T09:00:00.000Z`); in `--quirks original` every JSON string of exactly that shape is rewritten
    /// (`2026-01-01T09:00:00Z`, `…:00.12Z`), so a client is tested against the forms the original sends.
    static func rewrite(_ body: [UInt8]) -> [UInt8] {
        // "YYYY-MM-DDTHH:MM:SS.fffZ" with its quotes: 26 bytes.
        let length = 26
        guard body.count >= length else { return body }
        var output: [UInt8] = []
        output.reserveCapacity(body.count)
        var index = 0
        while index < body.count {
            if body[index] == UInt8(ascii: "\""), index + length <= body.count, isTimestamp(body, at: index) {
                // Up to and including the seconds, then the fraction's significant digits, then `Z"`.
                output.append(contentsOf: body[index..<(index + 20)])
                var digits = Array(body[(index + 21)..<(index + 24)])
                while digits.last == UInt8(ascii: "0") { digits.removeLast() }
                if !digits.isEmpty {
                    output.append(UInt8(ascii: "."))
                    output.append(contentsOf: digits)
                }
                output.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
                index += length
            } else {
                output.append(body[index])
                index += 1
            }
        }
        return output
    }

    /// Whether `body[start...]` is `"dddd-dd-ddTdd:dd:dd.dddZ"`.
    private static func isTimestamp(_ body: [UInt8], at start: Int) -> Bool {
        let shape = Array("\"dddd-dd-ddTdd:dd:dd.dddZ\"".utf8)
        for (offset, expected) in shape.enumerated() {
            let byte = body[start + offset]
            if expected == UInt8(ascii: "d") {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            } else if byte != expected {
                return false
            }
        }
        return true
    }
}
