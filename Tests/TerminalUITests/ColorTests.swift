import PropertyBased
import Testing

@testable import TerminalUI

@Suite struct ColorModeTests {
    @Test(arguments: [
        (["NO_COLOR": "1", "COLORTERM": "truecolor", "TERM": "xterm-256color"], ColorMode.none),
        (["COLORTERM": "truecolor", "TERM": "xterm-256color"], .trueColor),
        (["COLORTERM": "24bit", "TERM": "xterm"], .trueColor),
        (["TERM": "xterm-direct"], .trueColor),
        (["TERM": "xterm-256color"], .palette256),
        (["TERM": "tmux-256color", "NO_COLOR": ""], .palette256),
        (["TERM": "xterm"], .ansi16),
        ([:], .ansi16),
        (["TERM": "dumb"], .none),
    ])
    func detectsTheModeFromTheEnvironment(environment: [String: String], expected: ColorMode) {
        #expect(ColorMode.detect(environment: environment) == expected)
    }
}

@Suite struct ColorDowngradeTests {
    @Test(arguments: [
        ((255, 0, 0), 196), ((0, 0, 0), 16), ((255, 255, 255), 231), ((95, 135, 175), 67),
        ((128, 128, 128), 244), ((8, 8, 8), 232), ((238, 238, 238), 255), ((100, 102, 99), 241),
    ] as [((UInt8, UInt8, UInt8), UInt8)])
    func truecolorBecomesTheNearestPaletteEntry(rgb: (UInt8, UInt8, UInt8), index: UInt8) {
        let color = Color.rgb(red: rgb.0, green: rgb.1, blue: rgb.2)
        #expect(color.downgraded(to: .palette256) == .palette(index))
    }

    @Test func thePaletteChoiceIsAsCloseAsAnyCubeOrGreyEntry() async {
        await propertyCheck(count: 500, input: zip(Gen.uint8(), Gen.uint8(), Gen.uint8())) { r, g, b in
            let chosen = Color.nearestPaletteIndex(red: r, green: g, blue: b)
            let best = (16...255).map { Color.distance((r, g, b), Color.paletteRGB(UInt8($0))) }.min()!
            #expect(Color.distance((r, g, b), Color.paletteRGB(chosen)) == best, "\((r, g, b)) → \(chosen)")
        }
    }

    @Test func sixteenColourModeUsesTheNearestStandardColour() {
        #expect(Color.rgb(red: 250, green: 10, blue: 10).downgraded(to: .ansi16) == .ansi(.brightRed))
        #expect(Color.rgb(red: 0, green: 0, blue: 200).downgraded(to: .ansi16) == .ansi(.blue))
        #expect(Color.palette(196).downgraded(to: .ansi16) == .ansi(.brightRed))
        #expect(Color.palette(3).downgraded(to: .ansi16) == .ansi(.yellow))
        #expect(Color.palette(236).downgraded(to: .ansi16) == .ansi(.black))
        #expect(Color.ansi(.cyan).downgraded(to: .ansi16) == .ansi(.cyan))
        #expect(Color.palette(100).downgraded(to: .palette256) == .palette(100))
    }

    @Test func noColourDropsColoursButKeepsAttributes() {
        let selected = Style(
            foreground: .rgb(red: 1, green: 2, blue: 3), background: .palette(17), attributes: [.reverse, .bold])
        #expect(selected.downgraded(to: .none) == Style(attributes: [.reverse, .bold]))
        #expect(selected.downgraded(to: .trueColor) == selected)
    }

    @Test func hexColoursParse() {
        #expect(Color(hex: "#ff8800") == .rgb(red: 255, green: 136, blue: 0))
        #expect(Color(hex: "00FF7f") == .rgb(red: 0, green: 255, blue: 127))
        #expect(Color(hex: "#fff") == nil)
        #expect(Color(hex: "#gg0000") == nil)
    }

    @Test func sgrSetsTheWholeStyleFromAReset() {
        let style = Style(foreground: .ansi(.red), background: .palette(17), attributes: [.bold, .underline])
        #expect(style.sgr == "\u{1B}[0;1;4;31;48;5;17m")
        #expect(Style(foreground: .ansi(.brightRed), background: .ansi(.brightBlue)).sgr == "\u{1B}[0;91;104m")
        #expect(Style(foreground: .rgb(red: 1, green: 2, blue: 3)).sgr == "\u{1B}[0;38;2;1;2;3m")
        #expect(Style.plain.sgr == "\u{1B}[0m")
    }
}
