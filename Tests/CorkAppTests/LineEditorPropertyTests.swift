import CorkApp
import PropertyBased
import TerminalUI
import Testing

/// What a terminal sends for text, one Unicode scalar per key (as `KeyDecoder` reports it): mixed scripts, emoji,
/// flags (two regional indicators), ZWJ sequences, combining marks, variation selectors, and the scalars alone that
/// make them (a lone regional indicator, a ZWJ, a combining mark), plus control characters and line breaks.
private let pieces: [String] = [
    "a", "Z", " ", "é", "e\u{301}", "\u{301}", "\u{308}", "日本", "한", "ق", "ß", "🇩🇪", "🇩", "🇪", "🇫🇷", "👩‍💻", "👩",
    "\u{200D}", "💻", "👨‍👩‍👧‍👦", "❤️", "\u{FE0F}", "👍🏽", "🏽", "\t", "\n", "\r\n", "\u{7}", "\u{7F}", "\u{85}",
    "#️⃣", "\u{20E3}", "ก่", "\u{E01}\u{E48}",
]

/// One step: type a piece scalar by scalar (0), paste it whole (1), Backspace (2), Delete (3), Left (4), Right (5),
/// Home (6), End (7), Ctrl-W (8), Ctrl-U (9), Tab (10).
private typealias Step = (kind: Int, piece: Int)

private let steps = zip(Gen.int(in: 0...10), Gen.int(in: 0...(pieces.count - 1))).map { Step($0, $1) }.array(of: 0...40)

@Suite struct LineEditorPropertyTests {
    /// The key events for one step.
    private static func events(_ step: Step) -> [TUIMessage] {
        let piece = pieces[step.piece]
        func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TUIMessage { .key(KeyEvent(key, modifiers)) }
        switch step.kind {
        case 0: return piece.unicodeScalars.map { key(.character(Character($0))) }
        case 1: return [key(.paste(piece))]
        case 2: return [key(.backspace)]
        case 3: return [key(.delete)]
        case 4: return [key(.left)]
        case 5: return [key(.right)]
        case 6: return [key(.home)]
        case 7: return [key(.end)]
        case 8: return [key(.character("w"), .ctrl)]
        case 9: return [key(.character("u"), .ctrl)]
        default: return [key(.tab)]
        }
    }

    @Test func randomTypingEditingAndCursorMovesNeverBreakTheLine() async {
        await propertyCheck(count: 400, input: steps) { steps in
            var model = TUIModelTests.model(width: 30, height: 12)
            model.focus = .input
            for step in steps {
                for event in Self.events(step) {
                    _ = model.update(event)
                    // Tab may complete or move the focus on; put it back on the input line.
                    model.focus = .input
                    let line = model.input
                    #expect(line.cursor >= 0 && line.cursor <= line.text.count, "cursor \(line.cursor) in \(line.text.debugDescription)")
                    #expect(line.beforeCursor + line.text[line.beforeCursor.endIndex...] == line.text)
                                        #expect(!line.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
                }
                // Every frame draws, the cursor within the screen.
                let screen = model.render()
                #expect(screen.cursor.map { $0.x >= 0 && $0.x < 30 } ?? false)
            }
        }
    }

    @Test func flagsAndJoinedEmojiTypedScalarByScalarAreOneCharacterEach() {
        var line = LineEditor()
        for scalar in "🇩🇪👩‍💻x".unicodeScalars { line.insert(String(scalar)) }
        #expect(line.text == "🇩🇪👩‍💻x")
        #expect(line.cursor == 3)
        line.move(-1)
        line.backspace()
        #expect(line.text == "🇩🇪x")
        line.move(-5)
        #expect(line.cursor == 0)
        line.delete()
        #expect(line.text == "x")
        // A combining mark typed after a letter joins it; the cursor stays after the pair.
        line.set("e")
        line.insert("\u{301}")
        line.insert("!")
        #expect(line.text == "e\u{301}!" && line.cursor == 2)
        // A regional indicator typed before another one merges into a flag: the cursor moves past the flag.
        line.set("🇪")
        line.home()
        line.insert("🇩")
        #expect(line.text == "🇩🇪" && line.cursor == 1)
        line.insert("y")
        #expect(line.text == "🇩🇪y")
    }
}
