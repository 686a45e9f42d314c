import CorkApp
import TerminalUI
import Testing

/// A resize redraws the whole screen, at the terminal's own size.
extension TUIModelTests {
    @Test func aResizeRedrawsEverythingAtTheTerminalsSize() {
        var model = Self.model()
        let renderer = Renderer(colorMode: .trueColor)
        var shown = model.render()
        for (width, height) in [(10, 3), (20, 6), (60, 15), (60, 15), (100, 30)] {
            // The terminal may have reflowed or cleared what it showed: the next frame is drawn in full.
            #expect(model.update(.resize(width: width, height: height)) == [.repaint], "\(width)×\(height)")
            let frame = model.render()
            #expect(frame.width == width && frame.height == height, "\(frame.width)×\(frame.height)")
            shown = frame
        }
        #expect(shown.lines[0].contains("TODO 2"))
        // Too small for the board: the frame says so, in the rows it has, instead of drawing past the bottom.
        _ = model.update(.resize(width: 10, height: 3))
        let small = model.render().lines.joined(separator: " ")
        #expect(small.contains("too") && small.contains("small"), "\(small)")
        _ = model.update(.resize(width: 20, height: 6))
        #expect(model.render().lines.joined(separator: " ").contains("20×8"))
        // A full frame starts by clearing the screen, then writes every row.
        _ = model.update(.resize(width: 60, height: 15))
        let full = renderer.render(from: nil, to: model.render())
        #expect(full.contains("\u{1B}[2J"))
        for row in 1...15 where !model.render().lines[row - 1].allSatisfy({ $0 == " " }) {
            #expect(full.contains("\u{1B}[\(row);"), "row \(row) is not written")
        }
    }
}
