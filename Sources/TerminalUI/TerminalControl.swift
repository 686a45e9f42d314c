/// The escape sequences that switch terminal modes on and off.
public enum TerminalControl {
    /// Switches to the alternate screen (xterm 1049), leaving the shell's scrollback untouched.
    public static let enterAlternateScreen = "\u{1B}[?1049h"
    /// Switches back to the main screen.
    public static let leaveAlternateScreen = "\u{1B}[?1049l"
    /// Turns bracketed paste on: pasted text arrives between `ESC[200~` and `ESC[201~`.
    public static let enableBracketedPaste = "\u{1B}[?2004h"
    /// Turns bracketed paste off.
    public static let disableBracketedPaste = "\u{1B}[?2004l"
    /// Hides the cursor.
    public static let hideCursor = "\u{1B}[?25l"
    /// Shows the cursor.
    public static let showCursor = "\u{1B}[?25h"
    /// Resets the style to the default (SGR 0).
    public static let resetStyle = "\u{1B}[0m"
    /// Clears the screen and homes the cursor.
    public static let clearScreen = "\u{1B}[H\u{1B}[2J"

    /// Everything a full-screen session turns on, in order.
    public static let enterFullScreen = enterAlternateScreen + enableBracketedPaste + hideCursor + clearScreen

    /// Everything a full-screen session turns off, in order; the same bytes as `TerminalRestore.resetSequence`.
    public static let leaveFullScreen = resetStyle + disableBracketedPaste + showCursor + leaveAlternateScreen
}
