/// A foreground or background colour as a terminal understands it.
public enum Color: Hashable, Sendable {
    /// The terminal's own default colour (SGR 39 / 49).
    case `default`
    /// One of the 16 standard colours.
    case ansi(ANSIColor)
    /// An index into the xterm 256-colour palette (16 standard colours, the 6×6×6 cube, 24 greys).
    case palette(UInt8)
    /// A 24-bit colour.
    case rgb(red: UInt8, green: UInt8, blue: UInt8)

    /// Parses `#rrggbb` or `rrggbb` (any case) into an RGB colour; `nil` when it is not six hex digits.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.first == "#" { digits = digits.dropFirst() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            return nil
        }
        self = .rgb(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }
}
