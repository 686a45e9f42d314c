import PropertyBased
import Testing
import TerminalUI

/// Characters random frames are drawn with: ASCII, accented (precomposed and combining), CJK, emoji, ZWJ sequences,
/// flags and box drawing.
private let alphabet: [String] = ["a", "b", " ", "é", "e\u{301}", "日", "本", "한", "😀", "👩‍👩‍👧", "🇩🇪", "─", "…"]

/// Styles random frames are drawn with.
private let styles: [Style] = [
    .plain,
    Style(attributes: .bold),
    Style(attributes: [.reverse, .underline]),
    Style(foreground: .ansi(.red)),
    Style(foreground: .ansi(.brightCyan), background: .ansi(.blue)),
    Style(foreground: .palette(208), attributes: .italic),
    Style(foreground: .rgb(red: 250, green: 120, blue: 0), background: .rgb(red: 10, green: 20, blue: 30)),
    Style(background: .rgb(red: 10, green: 20, blue: 31), attributes: .dim),
]

/// One drawing step: what (0–7 write, 8 fill, 9 box), where, the text's letters, the style and a clip width.
private typealias Step = (kind: Int, x: Int, y: Int, letters: [Int], style: Int, clip: Int)

private let steps = zip(
    Gen.int(in: 0...9), Gen.int(in: -2...9), Gen.int(in: 0...4), Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...8),
    Gen.int(in: 0...(styles.count - 1)), Gen.int(in: 0...10)
).map { Step($0, $1, $2, $3, $4, $5) }.array(of: 0...10)

/// A frame of `size` drawn by `steps`, with the cursor at `cursor` when its x is in range.
private func frame(width: Int, height: Int, steps: [Step], cursor: (Int, Int)) -> ScreenBuffer {
    var buffer = ScreenBuffer(width: width, height: height)
    for step in steps {
        let style = styles[step.style]
        switch step.kind {
        case 8: buffer.fill(Rect(x: step.x, y: step.y, width: step.clip, height: 2), with: "░", style: style)
        case 9: buffer.drawBox(Rect(x: step.x, y: step.y, width: step.clip, height: 3), style: style, title: "日x")
        default:
            let text = step.letters.map { alphabet[$0] }.joined()
            buffer.write(text, x: step.x, y: step.y, style: style, maxWidth: step.kind < 4 ? nil : step.clip)
        }
    }
    buffer.cursor = cursor.0 < width && cursor.1 < height ? Position(x: cursor.0, y: cursor.1) : nil
    return buffer
}

private let sizes = zip(Gen.int(in: 1...9), Gen.int(in: 1...4))
private let cursors = zip(Gen.int(in: 0...12), Gen.int(in: 0...4))
private let modes = Gen.int(in: 0...3).map { ColorMode.allCases[$0] }

@Suite struct RendererPropertyTests {
    @Test func applyingTheDiffOfAToBOnAScreenShowingAGivesB() async throws {
        let input = zip(sizes, steps, steps, cursors, cursors, modes)
        await propertyCheck(count: 500, input: input) { size, stepsA, stepsB, cursorA, cursorB, mode in
            let a = frame(width: size.0, height: size.1, steps: stepsA, cursor: cursorA)
            let b = frame(width: size.0, height: size.1, steps: stepsB, cursor: cursorB)
            let renderer = Renderer(colorMode: mode)
            var terminal = TestTerminal(width: size.0, height: size.1, filledWith: "?")
            try terminal.apply(renderer.render(from: nil, to: a))
            #expect(terminal.matches(a, colorMode: mode), "first frame\n\(a.lines)\nshown\n\(terminal.lines)")
            let diff = renderer.render(from: a, to: b)
            try terminal.apply(diff)
            #expect(
                terminal.matches(b, colorMode: mode),
                "\(a.lines) → \(b.lines)\nshown \(terminal.lines)\n\(diff.debugDescription)")
            #expect(terminal.scrolls == 0)
        }
    }

    @Test func aChangeOfSizeRedrawsTheWholeFrame() async throws {
        let input = zip(sizes, sizes, steps, steps, cursors, modes)
        await propertyCheck(count: 200, input: input) { sizeA, sizeB, stepsA, stepsB, cursor, mode in
            let a = frame(width: sizeA.0, height: sizeA.1, steps: stepsA, cursor: cursor)
            let b = frame(width: sizeB.0, height: sizeB.1, steps: stepsB, cursor: cursor)
            var terminal = TestTerminal(width: sizeB.0, height: sizeB.1, filledWith: "?")
            try terminal.apply(Renderer(colorMode: mode).render(from: a, to: b))
            let redraws = sizeA != sizeB
            #expect(!redraws || terminal.matches(b, colorMode: mode), "\(terminal.lines) ≠ \(b.lines)")
        }
    }

    @Test func anUnchangedFrameProducesNoBytes() async {
        await propertyCheck(count: 300, input: zip(sizes, steps, cursors, modes)) { size, steps, cursor, mode in
            let a = frame(width: size.0, height: size.1, steps: steps, cursor: cursor)
            #expect(Renderer(colorMode: mode).render(from: a, to: a) == "")
        }
    }

    @Test func onlyChangedCellsAreWritten() async throws {
        await propertyCheck(count: 300, input: zip(sizes, steps, steps)) { size, stepsA, stepsB in
            let a = frame(width: size.0, height: size.1, steps: stepsA, cursor: (99, 99))
            let b = frame(width: size.0, height: size.1, steps: stepsB, cursor: (99, 99))
            // Mark every cell of A, draw the diff, and count the cells the diff wrote over the marks.
            var terminal = TestTerminal(width: size.0, height: size.1, filledWith: "?")
            try terminal.apply(Renderer().render(from: a, to: b))
            let changed = zip(a.cells, b.cells).offsets(where: { $0.0 != $0.1 })
            for index in terminal.cells.indices where terminal.cells[index].character != "?" {
                let x = index % size.0
                let wideNeighbour = x > 0 && (a.cells[index - 1] != b.cells[index - 1])
                #expect(changed.contains(index) || wideNeighbour, "cell \(index) rewritten though unchanged")
            }
        }
    }
}

extension Sequence {
    /// The offsets of the elements that satisfy `predicate`.
    fileprivate func offsets(where predicate: (Element) -> Bool) -> Set<Int> {
        Set(enumerated().filter { predicate($0.element) }.map(\.offset))
    }
}
