extension Color {
    /// This colour as a terminal in `mode` can show it: truecolor becomes the nearest xterm-256 entry (cube or grey
    /// ramp, whichever is closer) or the nearest of the 16 standard colours; `.none` gives `.default`.
    public func downgraded(to mode: ColorMode) -> Color {
        switch (mode, self) {
        case (_, .default), (.trueColor, _): self
        case (.none, _): .default
        case (.palette256, .rgb(let r, let g, let b)): .palette(Color.nearestPaletteIndex(red: r, green: g, blue: b))
        case (.palette256, _): self
        case (.ansi16, .ansi): self
        case (.ansi16, .palette(let index)):
            if index < 16, let ansi = ANSIColor(rawValue: index) {
                .ansi(ansi)
            } else {
                .ansi(Color.nearestANSI(Color.paletteRGB(index)))
            }
        case (.ansi16, .rgb(let r, let g, let b)): .ansi(Color.nearestANSI((r, g, b)))
        }
    }

    /// The levels of each channel in the xterm 6×6×6 colour cube.
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The RGB value of an xterm 256-palette entry.
    public static func paletteRGB(_ index: UInt8) -> (red: UInt8, green: UInt8, blue: UInt8) {
        switch index {
        case 0..<16: return ANSIColor(rawValue: index)!.rgb
        case 16..<232:
            let i = Int(index) - 16
            return (UInt8(cubeLevels[i / 36]), UInt8(cubeLevels[(i / 6) % 6]), UInt8(cubeLevels[i % 6]))
        default:
            let level = UInt8(8 + 10 * (Int(index) - 232))
            return (level, level, level)
        }
    }

    /// The xterm-256 index nearest to an RGB colour among the 6×6×6 cube and the 24-step grey ramp.
    public static func nearestPaletteIndex(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        let channels = [Int(red), Int(green), Int(blue)]
        let cube = channels.map { value in
            cubeLevels.indices.min { abs(cubeLevels[$0] - value) < abs(cubeLevels[$1] - value) }!
        }
        let cubeIndex = 16 + 36 * cube[0] + 6 * cube[1] + cube[2]
        let average = channels.reduce(0, +) / 3
        let greyStep = min(23, max(0, (average - 8 + 5) / 10))
        let greyIndex = 232 + greyStep
        let target = (red, green, blue)
        let cubeDistance = distance(target, paletteRGB(UInt8(cubeIndex)))
        let greyDistance = distance(target, paletteRGB(UInt8(greyIndex)))
        return UInt8(greyDistance < cubeDistance ? greyIndex : cubeIndex)
    }

    /// The standard colour nearest to an RGB colour in xterm's default palette.
    static func nearestANSI(_ rgb: (UInt8, UInt8, UInt8)) -> ANSIColor {
        ANSIColor.allCases.min { distance(rgb, $0.rgb) < distance(rgb, $1.rgb) }!
    }

    /// Squared Euclidean distance between two RGB colours.
    static func distance(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> Int {
        let dr = Int(a.0) - Int(b.0)
        let dg = Int(a.1) - Int(b.1)
        let db = Int(a.2) - Int(b.2)
        return dr * dr + dg * dg + db * db
    }
}
