/// One of the 16 standard terminal colours, numbered as in SGR 30–37 / 90–97.
public enum ANSIColor: UInt8, CaseIterable, Hashable, Sendable {
    /// Black (0).
    case black = 0
    /// Red (1).
    case red
    /// Green (2).
    case green
    /// Yellow (3).
    case yellow
    /// Blue (4).
    case blue
    /// Magenta (5).
    case magenta
    /// Cyan (6).
    case cyan
    /// White, usually light grey (7).
    case white
    /// Bright black, usually dark grey (8).
    case brightBlack
    /// Bright red (9).
    case brightRed
    /// Bright green (10).
    case brightGreen
    /// Bright yellow (11).
    case brightYellow
    /// Bright blue (12).
    case brightBlue
    /// Bright magenta (13).
    case brightMagenta
    /// Bright cyan (14).
    case brightCyan
    /// Bright white (15).
    case brightWhite

    /// The colour's RGB value in xterm's default palette, used to find the nearest colour when downgrading.
    public var rgb: (red: UInt8, green: UInt8, blue: UInt8) {
        switch self {
        case .black: (0, 0, 0)
        case .red: (205, 0, 0)
        case .green: (0, 205, 0)
        case .yellow: (205, 205, 0)
        case .blue: (0, 0, 238)
        case .magenta: (205, 0, 205)
        case .cyan: (0, 205, 205)
        case .white: (229, 229, 229)
        case .brightBlack: (127, 127, 127)
        case .brightRed: (255, 0, 0)
        case .brightGreen: (0, 255, 0)
        case .brightYellow: (255, 255, 0)
        case .brightBlue: (92, 92, 255)
        case .brightMagenta: (255, 0, 255)
        case .brightCyan: (0, 255, 255)
        case .brightWhite: (255, 255, 255)
        }
    }
}
