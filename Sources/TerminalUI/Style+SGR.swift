extension Style {
    /// The SGR sequence that sets exactly this style from any state: a reset (`0`) followed by its attributes and
    /// colours, e.g. `ESC[0;1;38;5;196m`. Colours are written as given; downgrade first for the terminal's mode.
    public var sgr: String {
        var parameters = ["0"]
        if attributes.contains(.bold) { parameters.append("1") }
        if attributes.contains(.dim) { parameters.append("2") }
        if attributes.contains(.italic) { parameters.append("3") }
        if attributes.contains(.underline) { parameters.append("4") }
        if attributes.contains(.reverse) { parameters.append("7") }
        Self.appendColor(foreground, base: 30, extended: 38, to: &parameters)
        Self.appendColor(background, base: 40, extended: 48, to: &parameters)
        return "\u{1B}[" + parameters.joined(separator: ";") + "m"
    }

    /// Appends the SGR parameters of one colour (`base` is 30 for foreground, 40 for background).
    private static func appendColor(_ color: Color, base: Int, extended: Int, to parameters: inout [String]) {
        switch color {
        case .default: break
        case .ansi(let ansi):
            let index = Int(ansi.rawValue)
            parameters.append(String(index < 8 ? base + index : base + 60 + index - 8))
        case .palette(let index): parameters.append("\(extended);5;\(index)")
        case .rgb(let r, let g, let b): parameters.append("\(extended);2;\(r);\(g);\(b)")
        }
    }
}
