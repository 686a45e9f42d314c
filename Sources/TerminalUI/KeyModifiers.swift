/// Modifier keys held with a key.
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    /// The modifier bits.
    public let rawValue: UInt8

    /// Makes modifiers from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shift.
    public static let shift = KeyModifiers(rawValue: 1 << 0)
    /// Alt (Meta; sent as an ESC prefix or modifier parameter).
    public static let alt = KeyModifiers(rawValue: 1 << 1)
    /// Control.
    public static let ctrl = KeyModifiers(rawValue: 1 << 2)

    /// Decodes an xterm modifier parameter (`1 + shift + 2·alt + 4·ctrl`, as in `ESC[1;5A`); meta (8) counts as alt.
    public init(xtermParameter: Int) {
        let bits = max(0, xtermParameter - 1)
        var modifiers: KeyModifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 || bits & 8 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.ctrl) }
        self = modifiers
    }
}
