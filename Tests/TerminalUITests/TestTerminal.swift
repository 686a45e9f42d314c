import TerminalUI

/// A tiny terminal emulator for tests: interprets CUP, SGR, ED 2J, DECTCEM and printable text, the way xterm does
/// (wide characters take two cells, overwriting half of one blanks the other half, writing the last column sets a
/// pending wrap and the next character wraps and may scroll).
struct TestTerminal {
    /// A failure to interpret the renderer's output.
    struct UnknownSequence: Error, CustomStringConvertible {
        /// The sequence that was not understood.
        var sequence: String
        var description: String { "unknown sequence \(sequence.debugDescription)" }
    }

    let width: Int
    let height: Int
    /// The screen, row by row, as cells (continuation cells carry their wide character's style).
    private(set) var cells: [Cell]
    var cursor = Position(x: 0, y: 0)
    var cursorVisible = true
    private var pendingWrap = false
    private var pen = Style.plain
    /// How many times the screen scrolled (a renderer should never make it scroll).
    private(set) var scrolls = 0
    /// Draw a grapheme of several scalars in the width of its first scalar, as tmux 3.3 does with `❤️` (U+2764 U+FE0F:
    /// one cell) where Unicode's emoji presentation and most terminals give two.
    var narrowSequences = false

    init(width: Int, height: Int, filledWith fill: Character = " ") {
        self.width = width
        self.height = height
        cells = Array(repeating: Cell(fill), count: width * height)
    }

    /// The cells of the screen in the form a `ScreenBuffer` holds them.
    func matches(_ buffer: ScreenBuffer, colorMode: ColorMode) -> Bool {
        let expected = buffer.cells.map { cell in
            var cell = cell
            cell.style = cell.style.downgraded(to: colorMode)
            return cell
        }
        guard expected == cells else { return false }
        if let wanted = buffer.cursor { return cursorVisible && cursor == wanted }
        return !cursorVisible
    }

    /// The screen as plain lines (wide characters once).
    var lines: [String] {
        (0..<height).map { y in
            let row = cells[(y * width)..<((y + 1) * width)]
            return String(row.compactMap { $0.isContinuation ? nil : $0.character })
        }
    }

    /// Interprets `output`.
    mutating func apply(_ output: String) throws {
        var characters = output.makeIterator()
        while let character = characters.next() {
            if character == "\u{1B}" {
                guard characters.next() == "[" else { throw UnknownSequence(sequence: "ESC") }
                var parameters = ""
                var final: Character = " "
                while let next = characters.next() {
                    if next.isASCII, let value = next.asciiValue, (0x40...0x7E).contains(value) {
                        final = next
                        break
                    }
                    parameters.append(next)
                }
                try control(parameters: parameters, final: final)
            } else {
                try print(character)
            }
        }
    }

    private mutating func control(parameters: String, final: Character) throws {
        switch (parameters, final) {
        case ("?25", "l"): cursorVisible = false
        case ("?25", "h"): cursorVisible = true
        case ("2", "J"): cells = Array(repeating: .blank(Style(background: pen.background)), count: width * height)
        case (_, "H"):
            let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
            let row = numbers.count > 0 ? numbers[0] : 1
            let column = numbers.count > 1 ? numbers[1] : 1
            cursor = Position(x: min(width, max(1, column)) - 1, y: min(height, max(1, row)) - 1)
            pendingWrap = false
        case (_, "m"): try sgr(parameters)
        default: throw UnknownSequence(sequence: "ESC[" + parameters + String(final))
        }
    }

    private mutating func sgr(_ parameters: String) throws {
        var numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
        func color() throws -> Color {
            switch numbers.popFirst() {
            case 5: return .palette(UInt8(numbers.popFirst() ?? 0))
            case 2:
                let r = numbers.popFirst() ?? 0, g = numbers.popFirst() ?? 0, b = numbers.popFirst() ?? 0
                return .rgb(red: UInt8(r), green: UInt8(g), blue: UInt8(b))
            default: throw UnknownSequence(sequence: "SGR " + parameters)
            }
        }
        while let number = numbers.popFirst() {
            switch number {
            case 0: pen = .plain
            case 1: pen.attributes.insert(.bold)
            case 2: pen.attributes.insert(.dim)
            case 3: pen.attributes.insert(.italic)
            case 4: pen.attributes.insert(.underline)
            case 7: pen.attributes.insert(.reverse)
            case 30...37: pen.foreground = .ansi(ANSIColor(rawValue: UInt8(number - 30))!)
            case 90...97: pen.foreground = .ansi(ANSIColor(rawValue: UInt8(number - 90 + 8))!)
            case 40...47: pen.background = .ansi(ANSIColor(rawValue: UInt8(number - 40))!)
            case 100...107: pen.background = .ansi(ANSIColor(rawValue: UInt8(number - 100 + 8))!)
            case 38: pen.foreground = try color()
            case 48: pen.background = try color()
            case 39: pen.foreground = .default
            case 49: pen.background = .default
            default: throw UnknownSequence(sequence: "SGR " + parameters)
            }
        }
    }

    private mutating func print(_ character: Character) throws {
        let scalars = character.unicodeScalars
        let columns =
            narrowSequences && scalars.count > 1
            ? max(1, DisplayWidth.of(scalars.first!)) : DisplayWidth.of(character)
        guard columns > 0 else { throw UnknownSequence(sequence: "zero-width " + String(character)) }
        if pendingWrap || cursor.x + columns > width { newLine() }
        let x = cursor.x, y = cursor.y
        for column in x..<(x + columns) { breakWide(x: column, y: y) }
        cells[y * width + x] = Cell(character, style: pen)
        if columns == 2 { cells[y * width + x + 1] = .continuation(pen) }
        if x + columns >= width {
            cursor.x = width - 1
            pendingWrap = true
        } else {
            cursor.x = x + columns
        }
    }

    private mutating func breakWide(x: Int, y: Int) {
        let index = y * width + x
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = .blank()
            cells[index] = .blank()
        } else if x + 1 < width, cells[index + 1].isContinuation {
            cells[index + 1] = .blank()
        }
    }

    private mutating func newLine() {
        pendingWrap = false
        cursor.x = 0
        if cursor.y + 1 < height {
            cursor.y += 1
        } else {
            cells.removeFirst(width)
            cells.append(contentsOf: Array(repeating: .blank(), count: width))
            scrolls += 1
        }
    }
}
