/// A key (or a paste) read from the terminal, without its modifiers.
public enum Key: Hashable, Sendable {
    /// A printable character (one Unicode scalar as typed), or the letter of a Ctrl/Alt chord.
    case character(Character)
    /// Enter / Return.
    case enter
    /// Tab; Shift-Tab is `.tab` with `.shift`.
    case tab
    /// Backspace (DEL or BS).
    case backspace
    /// A lone Escape (reported after `KeyDecoder.flush()`, since Escape also starts sequences).
    case escape
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Home.
    case home
    /// End.
    case end
    /// Page Up.
    case pageUp
    /// Page Down.
    case pageDown
    /// Delete (forward delete).
    case delete
    /// Insert.
    case insert
    /// A function key, F1 to F12.
    case function(Int)
    /// Text pasted while bracketed paste was on, as one event; line breaks normalised to `\n`.
    case paste(String)
}
