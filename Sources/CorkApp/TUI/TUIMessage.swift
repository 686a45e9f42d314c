import BoardClient
import BoardCore
import TerminalUI

/// What happened, for ``TUIModel/update(_:)``.
public enum TUIMessage: Sendable {
    /// A key (or a paste).
    case key(KeyEvent)
    /// The terminal was resized.
    case resize(width: Int, height: Int)
    /// The client library reported something.
    case client(ClientEvent)
    /// The number of ops queued or unanswered changed.
    case pending(Int)
    /// Time passed: one ``TUIModel/tickMilliseconds`` (highlights fade, the reconnect countdown counts down).
    case tick
    /// A card's history arrived (asked for by ``TUIEffect/fetchHistory(_:)``).
    case history(CardID, HistoryPage)
    /// A card's history could not be read.
    case historyFailed(CardID, String)
    /// `$EDITOR` closed: the new text, or nil when it was left unchanged or failed.
    case edited(EditorPurpose, String?)
    /// The boards this user is a member of (asked for by ``TUIEffect/listBoards``).
    case boards([BoardSummary])
    /// The boards could not be listed, or a board could not be created: why.
    case boardsFailed(String)
    /// The board asked for by ``TUIEffect/createBoard(_:name:)`` was created: switch to it.
    case boardCreated(BoardID)
    /// The process was continued after someone else stopped it (SIGCONT): the screen must be drawn again.
    case continued
    /// The board's recent activity, for the feed of a client that just started (asked for by
    /// ``TUIEffect/fetchBacklog(_:)``).
    case backlog(BoardID, HistoryPage)
    /// A page of the user's inbox, newest first, and how many entries are unread in all (asked for by
    /// ``TUIEffect/fetchInbox``).
    case inbox([InboxEntry], unread: Int)
    /// The inbox could not be read, or entries could not be marked read: why.
    case inboxFailed(String)
}

/// What `$EDITOR` is editing.
public enum EditorPurpose: Hashable, Sendable {
    /// A card's description, based on the description at `baseSeq`.
    case description(CardID, baseSeq: UInt64)
    /// A description conflict: both versions, for the user to merge.
    case mergeDescription(CardID, baseSeq: UInt64)
}

/// What ``TUIModel/update(_:)`` asks the runner to do.
public enum TUIEffect: Hashable, Sendable {
    /// Send an op (shown at once, optimistically).
    case submit(Op)
    /// Undo this user's change at `seq`.
    case undo(seq: UInt64)
    /// Tell the others what this user is doing.
    case presence(PresenceActivity, card: CardID? = nil, column: ColumnID? = nil, index: Int? = nil, away: Bool? = nil)
    /// Open `$EDITOR` on `text`.
    case edit(String, EditorPurpose)
    /// Follow another board.
    case switchBoard(BoardID)
    /// List the boards this user is a member of; the answer comes back as ``TUIMessage/boards(_:)``.
    case listBoards
    /// Create a board; ``TUIMessage/boardCreated(_:)`` (or `boardsFailed`) says how it went.
    case createBoard(BoardID, name: String)
    /// Read a card's history; the answer comes back as ``TUIMessage/history(_:_:)`` (or `historyFailed`).
    case fetchHistory(CardID)
    /// Read the board's recent activity for the feed; the answer comes back as ``TUIMessage/backlog(_:_:)``.
    case fetchBacklog(BoardID)
    /// Give the terminal back to the shell and stop (Ctrl-Z); on `fg`, take it again and redraw everything.
    case suspend
    /// Put raw mode and the full screen back and redraw everything (after an outside stop and continue).
    case redraw
    /// Draw the next frame in full: what the terminal shows is not known (it was resized, and a terminal reflows or
    /// clears its cells then), so a frame of only the cells that changed would leave rows blank.
    case repaint
    /// Read the newest page of the user's inbox; the answer comes back as ``TUIMessage/inbox(_:unread:)`` (or
    /// `inboxFailed`).
    case fetchInbox
    /// Mark these inbox entries read (every client of the user then hears it).
    case markInboxRead([Int64])
    /// Write this to the terminal: a notification's escape sequence, or a bell (``TerminalNotification``).
    case notify(String)
    /// End the reconnect wait and dial now.
    case reconnectNow
    /// Leave.
    case quit
}
