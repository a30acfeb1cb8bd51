/// RFC 8785 (JCS) serialisation: the bytes the sync digest hashes (api-v1 §14).
///
/// Object members are sorted by their names' UTF-16 code units, no whitespace is written, strings are escaped as
/// ECMAScript's `JSON.stringify` escapes them (`\"`, `\\`, the five short control escapes, `\u00xx` for the other
/// control characters; everything else literal), and numbers take ECMAScript's `Number.prototype.toString` form: the
/// shortest digits that read back as the same double, without an exponent from 1e-6 up to 1e21.
public enum CanonicalJSON {
    /// The canonical bytes of `value`.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, to: &output)
        return output
    }

    /// Appends the canonical bytes of `value` to `output`.
    public static func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let flag): output.append(contentsOf: flag ? Array("true".utf8) : Array("false".utf8))
        case .number(let number): writeNumber(number, to: &output)
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members): writeObject(members.map { (name: $0.key, value: $0.value) }, to: &output)
        }
    }

    /// An object given as a list of members with distinct names, in any order: the bytes of the same `.object`,
    /// without building its dictionary.
    public static func bytes(members: [(name: String, value: JSONValue)]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        writeObject(members, to: &output)
        return output
    }

    /// Members in JCS order: names by UTF-16 code units (which differs from comparing UTF-8 only beyond the BMP).
    static func writeObject(_ members: [(name: String, value: JSONValue)], to output: inout [UInt8]) {
        let ascii = members.allSatisfy { $0.name.utf8.allSatisfy { $0 < 0x80 } }
        let sorted = members.sorted {
            ascii
                ? $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
                : $0.name.utf16.lexicographicallyPrecedes($1.name.utf16)
        }
        output.append(UInt8(ascii: "{"))
        for (index, member) in sorted.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            writeString(member.name, to: &output)
            output.append(UInt8(ascii: ":"))
            write(member.value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (ids, names, times) need no escape: copied whole, from contiguous storage when they have it.
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            output.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x00..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0x0F)],
                ])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// ECMAScript's `Number::toString` for a finite double (JSON has no other).
    static func writeNumber(_ number: Double, to output: inout [UInt8]) {
        output.append(contentsOf: Array(numberText(number).utf8))
    }

    /// `number` as ECMAScript writes it; `null` for a number that is not finite.
    public static func numberText(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == 0 { return "0" }
        // Swift's description is the shortest round-trip digits, as ECMAScript requires; only the layout differs.
        let (digits, pointPosition) = decimalDigits(of: number.magnitude)
        let sign = number < 0 ? "-" : ""
        let k = digits.count
        let n = pointPosition
        if k <= n && n <= 21 { return sign + digits + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 {
            return sign + digits.prefix(n) + "." + digits.dropFirst(n)
        }
        if -6 < n && n <= 0 { return sign + "0." + String(repeating: "0", count: -n) + digits }
        let exponent = n - 1
        let mantissa = k == 1 ? digits : digits.prefix(1) + "." + digits.dropFirst()
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String(exponent.magnitude)
    }

    /// The significant digits of a positive double (no leading or trailing zeros) and the position of the decimal
    /// point relative to them: value = 0.d₁d₂…dₖ × 10ⁿ.
    static func decimalDigits(of magnitude: Double) -> (digits: String, pointPosition: Int) {
        let text = "\(magnitude)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", maxSplits: 1)
        let integerPart = mantissa[0]
        let fractionPart = mantissa.count == 2 ? mantissa[1] : ""
        var digits = Substring(integerPart + fractionPart)
        var pointPosition = integerPart.count + exponent
        while digits.first == "0" {
            digits = digits.dropFirst()
            pointPosition -= 1
        }
        while digits.last == "0" { digits = digits.dropLast() }
        return (String(digits), pointPosition)
    }
}
