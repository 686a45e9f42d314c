/// Something the terminal reported: a key, a new size, a signal, or the end of input.
public enum TerminalEvent: Hashable, Sendable {
    /// A decoded key press or paste.
    case key(KeyEvent)
    /// The window changed size (SIGWINCH); the new size.
    case resize(TerminalSize)
    /// SIGINT, SIGTERM or SIGHUP arrived; the app should leave its terminal scopes, which restores the terminal.
    case signal(Int32)
    /// The input closed or failed (the terminal went away); no more keys will come.
    case endOfInput
}
