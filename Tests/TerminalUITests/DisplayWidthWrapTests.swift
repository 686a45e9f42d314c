import Testing

@testable import TerminalUI

/// `DisplayWidth.wrap`: text that is there to be read is broken into lines that fit, and nothing is lost.
@Suite struct DisplayWidthWrapTests {
    /// The lines without their indent, joined: the original text.
    static func joined(_ lines: [String], indent: Int) -> String {
        lines.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst(indent)) }.joined()
    }

    @Test(arguments: [
        "a short line",
        String(repeating: "word ", count: 60) + "END",
        "<alice> " + String(repeating: "x", count: 262),
        "日本語のテキストは幅が二つの文字で、" + String(repeating: "漢字", count: 40) + " END",
        "flags 🇩🇪🇫🇷 and people 👩‍💻👩‍💻👩‍💻 " + String(repeating: "🙂", count: 50),
    ])
    func everyLineFitsAndNothingIsLost(_ text: String) {
        for width in [7, 20, 38, 80] {
            let lines = DisplayWidth.wrap(text, width: width, indent: 2)
            #expect(Self.joined(lines, indent: 2) == text, "width \(width)")
            for line in lines { #expect(DisplayWidth.of(line) <= width, "width \(width): \(line)") }
        }
    }

    @Test func breaksAfterASpaceAndInsideAWordOnlyWhenItMust() {
        #expect(DisplayWidth.wrap("one two three", width: 8) == ["one two ", "three"])
        #expect(DisplayWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrap("ab cdefghij", width: 4, indent: 1) == ["ab ", " cde", " fgh", " ij"])
        #expect(DisplayWidth.wrap("", width: 5) == [""])
    }
}
