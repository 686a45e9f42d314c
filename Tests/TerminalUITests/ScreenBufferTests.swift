import Testing
import TerminalUI

@Suite struct ScreenBufferTests {
    @Test func writesPlainTextAndReadsItBack() {
        var buffer = ScreenBuffer(width: 8, height: 2)
        let advanced = buffer.write("hello", x: 1, y: 0)
        #expect(advanced == 5)
        #expect(buffer.lines == [" hello  ", "        "])
        #expect(buffer.line(1) == "        ")
    }

    @Test func aWideCharacterTakesItsCellAndAContinuation() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.write("日本x", x: 0, y: 0)
        #expect(buffer.line(0) == "日本x ")
        #expect(buffer[0, 0].character == "日")
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[2, 0].character == "本")
        #expect(buffer[4, 0].character == "x")
    }

    @Test func aWideCharacterThatWouldCrossTheRightEdgeLeavesASpace() {
        var buffer = ScreenBuffer(width: 3, height: 1)
        buffer.write("ab日", x: 0, y: 0)
        #expect(buffer.line(0) == "ab ")
        #expect(!buffer[2, 0].isContinuation)
    }

    @Test func aClipWidthCutsTextAndPadsAStraddlingWideCharacter() {
        var buffer = ScreenBuffer(width: 8, height: 1)
        buffer.fill(buffer.bounds, with: ".")
        buffer.write("日本語", x: 1, y: 0, maxWidth: 3)
        #expect(buffer.line(0) == ".日 ....")
    }

    @Test func textScrolledOffTheLeftEdgeIsClipped() {
        var buffer = ScreenBuffer(width: 5, height: 1)
        buffer.fill(buffer.bounds, with: ".")
        buffer.write("日本x", x: -1, y: 0)
        #expect(buffer.line(0) == " 本x.")
        buffer.write("abc", x: -5, y: 0)
        #expect(buffer.line(0) == " 本x.")
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.write("日本", x: 0, y: 0)
        buffer.write("a", x: 1, y: 0)
        #expect(buffer.line(0) == " a本  ")
        buffer.write("b", x: 2, y: 0)
        #expect(buffer.line(0) == " ab   ")
        #expect(buffer.cells.allSatisfy { !$0.isContinuation })
    }

    @Test func aWideCharacterOverTwoWideHalvesBlanksBothNeighbours() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.write("日本語", x: 0, y: 0)
        buffer.write("😀", x: 1, y: 0)
        #expect(buffer.line(0) == " 😀 語")
    }

    @Test func zeroWidthClustersAndControlsAreSkipped() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.write("a\u{200B}\tb\u{7}c", x: 0, y: 0)
        #expect(buffer.line(0) == "abc   ")
    }

    @Test func writesOutsideTheBufferAreIgnored() {
        var buffer = ScreenBuffer(width: 3, height: 1)
        buffer.write("abc", x: 0, y: 1)
        buffer.write("abc", x: 0, y: -1)
        buffer.write("abc", x: 3, y: 0)
        #expect(buffer.line(0) == "   ")
    }

    @Test func fillSetsEveryCellOfTheClippedRectangle() {
        var buffer = ScreenBuffer(width: 4, height: 3)
        let style = Style(background: .ansi(.blue))
        buffer.fill(Rect(x: 2, y: 1, width: 5, height: 5), with: "#", style: style)
        #expect(buffer.lines == ["    ", "  ##", "  ##"])
        #expect(buffer[3, 2].style == style)
        #expect(buffer[1, 2].style == .plain)
    }

    @Test func boxesUseBoxDrawingCharactersAndCarryATitle() {
        var buffer = ScreenBuffer(width: 12, height: 4)
        buffer.drawBox(Rect(x: 1, y: 0, width: 10, height: 4), title: "TODO 3")
        #expect(
            buffer.lines == [
                " ┌─TODO 3─┐ ",
                " │        │ ",
                " │        │ ",
                " └────────┘ ",
            ])
        buffer.drawBox(Rect(x: 0, y: 0, width: 7, height: 2), border: .rounded, title: "DOING 3/5")
        #expect(buffer.lines[0...1] == ["╭─DO…─╮ 3─┐ ", "╰─────╯   │ "])
    }

    @Test func spansGroupAdjacentCellsByStyle() {
        var buffer = ScreenBuffer(width: 8, height: 1)
        let red = Style(foreground: .ansi(.red))
        buffer.write("#12", x: 0, y: 0, style: red)
        buffer.write("日x", x: 4, y: 0, style: red.adding(.bold))
        #expect(
            buffer.spans(0) == [
                StyledSpan(x: 0, text: "#12", style: red),
                StyledSpan(x: 3, text: " ", style: .plain),
                StyledSpan(x: 4, text: "日x", style: red.adding(.bold)),
                StyledSpan(x: 7, text: " ", style: .plain),
            ])
    }
}
