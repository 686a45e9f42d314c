/// How many colours a terminal can show.
public enum ColorMode: Hashable, Sendable, CaseIterable {
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    case trueColor
    /// The xterm 256-colour palette (`TERM` containing `256color`).
    case palette256
    /// The 16 standard colours.
    case ansi16
    /// No colour at all (`NO_COLOR`, `TERM=dumb`); attributes such as reverse and bold still show.
    case none

    /// Detects the colour mode from environment values (pure: the caller passes the environment in).
    ///
    /// `NO_COLOR` set to a non-empty value (no-color.org) or `TERM=dumb` gives `.none`; `COLORTERM=truecolor`/`24bit`
    /// or a `TERM` ending in `-direct` gives `.trueColor`; a `TERM` containing `256color` gives `.palette256`; anything
    /// else `.ansi16`.
    public static func detect(environment: [String: String]) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let term = environment["TERM"] ?? ""
        if term == "dumb" { return .none }
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        if colorTerm == "truecolor" || colorTerm == "24bit" || term.hasSuffix("-direct") { return .trueColor }
        if term.contains("256color") { return .palette256 }
        return .ansi16
    }
}
