import Testing
import TerminalUI

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("a", 1), ("~", 1), ("日", 2), ("한", 2), ("ア", 2), ("ｱ", 1), ("Ａ", 2), ("　", 2), ("𠀋", 2),
        ("😀", 2), ("👍🏽", 2), ("👩‍👩‍👧", 2), ("🧑‍💻", 2), ("🇩🇪", 2), ("🇯🇵", 2), ("❤️", 2), ("❤", 1), ("1️⃣", 2),
        ("é", 1), ("e\u{301}", 1), ("a\u{301}\u{302}\u{303}", 1), ("日\u{301}", 2), ("\u{1100}\u{1161}\u{11A8}", 2),
        ("\u{200D}", 0), ("\u{200B}", 0), ("\u{FE0F}", 0), ("\u{301}", 0), ("\u{7}", 0), ("\t", 0), ("\u{85}", 0),
        ("─", 1), ("…", 1), ("→", 1), ("λ", 1), ("я", 1),
        // The fast paths: one byte of ASCII, and box drawing and block elements.
        (" ", 1), ("\u{0}", 0), ("\u{1F}", 0), ("\u{7F}", 0), ("\r\n", 0), ("│", 1), ("╯", 1), ("▰", 1), ("█", 1),
        ("▟", 1), ("■", 1), ("◽", 2),
    ] as [(Character, Int)])
    func characterWidths(character: Character, width: Int) {
        #expect(DisplayWidth.of(character) == width, "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func stringWidthsAddUpTheirClusters() {
        #expect(DisplayWidth.of("日本語abc") == 9)
        #expect(DisplayWidth.of("Cafe\u{301}") == 4)
        #expect(DisplayWidth.of("👩‍👩‍👧 fam") == 6)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test(arguments: [
        ("hello", 10, "hello"),
        ("hello", 5, "hello"),
        ("hello world", 8, "hello w…"),
        ("日本語", 6, "日本語"),
        ("日本語", 5, "日本…"),
        ("日本語テキスト", 6, "日本… "),
        ("a日本", 4, "a日…"),
        ("ab日本", 4, "ab… "),
        ("abcdef", 1, "…"),
        ("abcdef", 0, ""),
        ("👩‍👩‍👧x", 2, "… "),
        ("Cafe\u{301} au lait", 5, "Cafe\u{301}…"),
    ])
    func truncation(text: String, width: Int, expected: String) {
        let truncated = DisplayWidth.truncate(text, to: width)
        #expect(truncated == expected)
        #expect(DisplayWidth.of(truncated) <= max(0, width))
    }

    @Test func truncationWithoutEllipsisPadsAStraddlingWideCharacter() {
        #expect(DisplayWidth.truncate("日本語", to: 5, ellipsis: nil) == "日本 ")
        #expect(DisplayWidth.truncate("abc", to: 2, ellipsis: nil) == "ab")
    }

    @Test func fitPadsOrTruncatesToExactlyTheWidth() {
        #expect(DisplayWidth.fit("ab", to: 4) == "ab  ")
        #expect(DisplayWidth.fit("日本", to: 5) == "日本 ")
        #expect(DisplayWidth.fit("日本語", to: 5) == "日本…")
        for width in 0...12 {
            #expect(DisplayWidth.of(DisplayWidth.fit("日本語 mixed 😀 text", to: width)) == width)
        }
    }
}
