/// One decoded key press: a key and the modifiers held with it.
public struct KeyEvent: Hashable, Sendable {
    /// The key.
    public var key: Key
    /// The modifiers held.
    public var modifiers: KeyModifiers

    /// Makes a key event.
    public init(_ key: Key, _ modifiers: KeyModifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }

    /// A printable character with no modifiers.
    public static func character(_ character: Character) -> KeyEvent { KeyEvent(.character(character)) }

    /// Ctrl held with a letter or symbol (`ctrl("c")` is byte 0x03).
    public static func ctrl(_ character: Character) -> KeyEvent { KeyEvent(.character(character), .ctrl) }

    /// Alt held with a character (`ESC x`).
    public static func alt(_ character: Character) -> KeyEvent { KeyEvent(.character(character), .alt) }
}
