/// A label colour written `#RRGGBB`, with the text colour that stays readable on it.
public struct HexColor: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Red, 0...255.
    public let red: UInt8
    /// Green, 0...255.
    public let green: UInt8
    /// Blue, 0...255.
    public let blue: UInt8

    /// Makes a colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses exactly `#RRGGBB` (hex digits in either case).
    public init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count == 7, b[0] == 0x23 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var channels: [UInt8] = []
        for i in stride(from: 1, to: 7, by: 2) {
            guard let hi = nibble(b[i]), let lo = nibble(b[i + 1]) else { return nil }
            channels.append(hi << 4 | lo)
        }
        self.init(red: channels[0], green: channels[1], blue: channels[2])
    }

    /// Perceived brightness 0...1: (0.299 R + 0.587 G + 0.114 B) / 255.
    public var luminance: Double {
        (0.299 * Double(red) + 0.587 * Double(green) + 0.114 * Double(blue)) / 255
    }

    /// Whether text on this colour should be dark: luminance of 0.5 or more.
    public var prefersDarkText: Bool { luminance >= 0.5 }

    /// The text colour to draw on this colour: black on light colours, white on dark ones.
    public var textColor: HexColor {
        prefersDarkText ? HexColor(red: 0, green: 0, blue: 0) : HexColor(red: 255, green: 255, blue: 255)
    }

    /// `#rrggbb` in lower case.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [0x23]
        for c in [red, green, blue] {
            out.append(digits[Int(c >> 4)])
            out.append(digits[Int(c & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes from `"#RRGGBB"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let color = HexColor(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a colour #RRGGBB")
        }
        self = color
    }

    /// Encodes as `"#rrggbb"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
