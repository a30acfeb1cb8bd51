import Models
import Testing

@Suite("Text limits")
struct TextLimitTests {
    @Test("limits count UTF-8 bytes; a NUL anywhere is refused whatever the length")
    func problem() {
        #expect(TextLimit.problem(in: String(repeating: "é", count: 256), limitBytes: 512) == nil)
        #expect(TextLimit.problem(in: String(repeating: "é", count: 257), limitBytes: 512) == .tooLong(limitBytes: 512))
        #expect(TextLimit.problem(in: "a\u{0}", limitBytes: 512) == .nulCharacter)
        #expect(TextLimit.problem(in: "", limitBytes: 0) == nil)
    }

    @Test("every string of a body is found with its path and its member's limit")
    func paths() {
        let value = JSONValue.string(String(repeating: "v", count: TextLimit.propertyValueBytes))
        let members: [String: JSONValue] = [
            "notes": .string(String(repeating: "n", count: TextLimit.notesBytes)),
            "name": .string(String(repeating: "n", count: TextLimit.otherBytes + 1)),
            "properties": .object(["ok": .object(["value": value]), "bad": .object(["value": .string("\u{0}")])]),
            "options": .array([.string("a"), .string("b\u{0}")]),
            "k\u{0}": .null,
        ]
        let found = TextLimit.problems(in: members).map { "\($0.field) \($0.problem.code)" }
        #expect(
            found == [
                "k\\u0000 nul_character", "name too_long", "options[1] nul_character",
                "properties.bad.value nul_character",
            ])
    }
}
