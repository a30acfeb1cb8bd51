/// How many terminal columns text takes, so that tables line up whatever script their cells are in: a CJK
/// ideograph, a Hangul syllable, a fullwidth form or an emoji takes two; a zero-width format character or a lone
/// combining mark none; anything else one (the East Asian Width property, as terminals apply it).
enum DisplayWidth {
    static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation || $0 == "\u{FE0F}" }) {
            return 2
        }
        switch first.properties.generalCategory {
        case .format, .nonspacingMark, .enclosingMark: return 0
        default: break
        }
        return wideRanges.contains { $0.contains(first.value) } ? 2 : 1
    }

    /// `text` cut to at most `columns` columns, whole characters only.
    static func prefix(_ text: String, columns: Int) -> String {
        var used = 0
        var kept = ""
        for character in text {
            used += of(character)
            if used > columns { break }
            kept.append(character)
        }
        return kept
    }

    /// `text` followed by spaces up to `columns` columns.
    static func padded(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - of(text)))
    }

    /// The blocks whose characters are wide (W) or fullwidth (F) in Unicode's East Asian Width.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo, leading consonants
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
        0x3400...0x4DBF,  // CJK unified ideographs extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B to F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G and later
    ]
}
