import Testing
import TerminalUI

/// ESC, for writing expected escape sequences.
let esc = "\u{1B}"

@Suite struct RendererTests {
    let renderer = Renderer()

    /// A blank 10×3 frame with no cursor.
    var blank: ScreenBuffer { ScreenBuffer(width: 10, height: 3) }

    @Test func anUnchangedFrameProducesNoBytes() {
        var frame = blank
        frame.write("hello 日本", x: 0, y: 1, style: Style(foreground: .ansi(.green)))
        frame.cursor = Position(x: 2, y: 2)
        #expect(renderer.render(from: frame, to: frame) == "")
        #expect(renderer.render(from: blank, to: blank) == "")
    }

    @Test func oneChangedCellIsOneMoveAndOneCharacter() {
        var next = blank
        next.write("x", x: 4, y: 1)
        #expect(renderer.render(from: blank, to: next) == "\(esc)[2;5Hx")
    }

    @Test func adjacentChangesShareOneMove() {
        var next = blank
        next.write("ab", x: 0, y: 0)
        #expect(renderer.render(from: blank, to: next) == "\(esc)[1;1Hab")
    }

    @Test func separateChangesEachMoveTheCursor() {
        var next = blank
        next.write("a", x: 0, y: 0)
        next.write("b", x: 5, y: 0)
        next.write("c", x: 0, y: 2)
        #expect(renderer.render(from: blank, to: next) == "\(esc)[1;1Ha\(esc)[1;6Hb\(esc)[3;1Hc")
    }

    @Test func styleIsSentOnlyWhenItChangesAndResetAtTheEnd() {
        var next = blank
        let bold = Style(attributes: .bold)
        next.write("ab", x: 0, y: 0, style: bold)
        next.write("c", x: 2, y: 0)
        next.write("d", x: 3, y: 0, style: bold)
        #expect(
            renderer.render(from: blank, to: next)
                == "\(esc)[1;1H\(esc)[0;1mab\(esc)[0mc\(esc)[0;1md\(esc)[0m")
    }

    @Test func aWideCharacterAdvancesTheCursorByTwo() {
        var next = blank
        next.write("日x", x: 0, y: 0)
        #expect(renderer.render(from: blank, to: next) == "\(esc)[1;1H日x")
    }

    @Test func anEmojiSequenceIsFollowedByAnExplicitMove() {
        var next = blank
        next.write("❤️x", x: 0, y: 0)
        #expect(renderer.render(from: blank, to: next) == "\(esc)[1;1H  \(esc)[1;1H❤️\(esc)[1;3Hx")
    }

    /// A terminal that draws emoji sequences narrower than Unicode says (tmux 3.3: `❤️` in one cell) must still show
    /// every border where the frame has it.
    @Test(arguments: ["❤️", "👩‍💻", "🇩🇪", "👍🏽", "1️⃣", "e\u{301}"])
    func bordersStayInPlaceOnATerminalThatDrawsASequenceNarrower(sequence: String) throws {
        var frame = ScreenBuffer(width: 12, height: 2)
        frame.write("│" + sequence + "│ab│", x: 0, y: 0)
        frame.write("│" + sequence + sequence + "│", x: 0, y: 1)
        for narrow in [false, true] {
            var terminal = TestTerminal(width: 12, height: 2, filledWith: "#")
            terminal.narrowSequences = narrow
            try terminal.apply(renderer.render(from: nil, to: frame))
            for y in 0..<2 {
                for x in 0..<12 where frame[x, y].character == "│" {
                    #expect(terminal.cells[y * 12 + x].character == "│", "row \(y) column \(x), narrow: \(narrow)")
                }
            }
            if !narrow { #expect(terminal.matches(frame, colorMode: .trueColor)) }
            #expect(!terminal.lines.joined().contains("#"))
        }
    }

    @Test func writingTheLastColumnForcesAnExplicitMove() {
        var next = blank
        next.write("z", x: 9, y: 0)
        next.write("a", x: 0, y: 1)
        #expect(renderer.render(from: blank, to: next) == "\(esc)[1;10Hz\(esc)[2;1Ha")
    }

    @Test func theCursorIsHiddenWhileDrawingAndShownWhereTheFrameAsks() {
        var previous = blank
        previous.cursor = Position(x: 0, y: 2)
        var next = previous
        next.write("x", x: 1, y: 0)
        next.cursor = Position(x: 3, y: 2)
        #expect(
            renderer.render(from: previous, to: next) == "\(esc)[?25l\(esc)[1;2Hx\(esc)[3;4H\(esc)[?25h")
    }

    @Test func movingOnlyTheCursorIsOneMove() {
        var previous = blank
        previous.cursor = Position(x: 0, y: 2)
        var next = previous
        next.cursor = Position(x: 5, y: 2)
        #expect(renderer.render(from: previous, to: next) == "\(esc)[3;6H")
        next.cursor = nil
        #expect(renderer.render(from: previous, to: next) == "\(esc)[?25l")
        #expect(renderer.render(from: next, to: previous) == "\(esc)[3;1H\(esc)[?25h")
    }

    @Test func theFirstFrameClearsAndDrawsOnlyNonBlankCells() {
        var next = ScreenBuffer(width: 4, height: 2)
        next.write("ab", x: 1, y: 1)
        #expect(renderer.render(from: nil, to: next) == "\(esc)[?25l\(esc)[0m\(esc)[H\(esc)[2J\(esc)[2;2Hab")
    }

    @Test func aSizeChangeRedrawsEverything() throws {
        var previous = ScreenBuffer(width: 4, height: 2)
        previous.write("abcd", x: 0, y: 0)
        var next = ScreenBuffer(width: 5, height: 2)
        next.write("abcd", x: 0, y: 0)
        let output = renderer.render(from: previous, to: next)
        #expect(output.hasPrefix("\(esc)[?25l\(esc)[0m\(esc)[H\(esc)[2J"))
        var terminal = TestTerminal(width: 5, height: 2, filledWith: "?")
        try terminal.apply(output)
        #expect(terminal.matches(next, colorMode: .trueColor))
    }

    @Test func coloursAreDowngradedToTheTerminalsMode() {
        var next = blank
        next.write("x", x: 0, y: 0, style: Style(foreground: .rgb(red: 255, green: 0, blue: 0)))
        #expect(
            Renderer(colorMode: .palette256).render(from: blank, to: next) == "\(esc)[1;1H\(esc)[0;38;5;196mx\(esc)[0m")
        #expect(Renderer(colorMode: .ansi16).render(from: blank, to: next) == "\(esc)[1;1H\(esc)[0;91mx\(esc)[0m")
        #expect(Renderer(colorMode: .none).render(from: blank, to: next) == "\(esc)[1;1Hx")
    }

    @Test func replacingAWideCharacterWithNarrowOnesRewritesBothColumns() throws {
        var previous = blank
        previous.write("日本", x: 0, y: 0)
        var next = previous
        next.write("ab", x: 2, y: 0)
        let output = renderer.render(from: previous, to: next)
        #expect(output == "\(esc)[1;3Hab")
        var terminal = TestTerminal(width: 10, height: 3)
        try terminal.apply(renderer.render(from: nil, to: previous))
        try terminal.apply(output)
        #expect(terminal.lines[0] == "日ab      ")
        #expect(terminal.matches(next, colorMode: .trueColor))
    }
}
