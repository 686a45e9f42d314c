import BoardClientCore
import BoardCore
import NIOCore
import Synchronization

/// Where a page's messages go: its WebSocket connection, written on the connection's event loop in the order they
/// are given (one `execute` each, so lines from the page's own session and from its board's ``BoardViews`` keep
/// the order in which they were sent). A page that does not read is closed by the connection's `OutboxHandler`.
struct PageOutbox: Sendable {
    let channel: any Channel

    func send(_ line: ByteBuffer) {
        let channel = self.channel
        channel.eventLoop.execute { channel.writeAndFlush(line, promise: nil) }
    }

    var id: ObjectIdentifier { ObjectIdentifier(channel) }
}

/// What the pages showing a board's confirmed state are shown, kept once per board on this server, and the pages
/// it is written to.
///
/// A page whose session has no change of its own waiting shows the board as the server confirmed it, as every other
/// such page of that board does. Those pages are **attached** to the board's view here: when the first of their
/// sessions sees a newer confirmed board, the view computes the diff once, encodes it once and writes the same
/// bytes to every attached page, straight onto its connection's event loop. The other sessions then find the view
/// already at that seq and send nothing. A page with a change of its own in flight shows something else (its
/// optimistic view): its session detaches it, takes over what the page shows and sends its own diffs, and attaches
/// it again once it shows the confirmed board at the view's seq.
///
/// So a change reaches N attached pages with one diff, one encoding and N writes, instead of N diffs, N encodings
/// and N trips through a session each; and a page's session holds no copy of what the page shows while attached.
final class BoardViews: Sendable {
    struct View {
        /// The seq and the cards shown by the attached pages; nil until a page attaches.
        var current: (seq: UInt64, shown: LiveSession.Shown)?
        var pages: [ObjectIdentifier: PageOutbox] = [:]
        /// The sessions showing this board, attached or not.
        var sessions = 0
    }

    private let views = Mutex<[BoardID: View]>([:])
    /// The confirmed boards of the sessions' clients, forgotten with the board's last session.
    let boards: SharedBoards

    init(boards: SharedBoards = SharedBoards()) { self.boards = boards }

    /// A session starts showing `board`.
    func join(_ board: BoardID) {
        views.withLock { $0[board, default: View()].sessions += 1 }
    }

    /// A session stops showing `board` (another board, or its page went away).
    func leave(_ board: BoardID, page: ObjectIdentifier) {
        let last = views.withLock { views -> Bool in
            guard var view = views[board] else { return false }
            view.pages[page] = nil
            view.sessions -= 1
            if view.sessions <= 0 {
                views[board] = nil
                return true
            }
            views[board] = view
            return false
        }
        if last { boards.forget(board) }
    }

    /// Attaches `page`, which shows `shown` at `seq` (the confirmed board, with nothing of its own on top), when
    /// that is what the view shows; or when no page is attached, makes the view what this page shows. Returns
    /// whether it is attached.
    func attach(_ page: PageOutbox, board: BoardID, seq: UInt64, shown: LiveSession.Shown) -> Bool {
        views.withLock { views in
            guard var view = views[board] else { return false }
            if let current = view.current, !view.pages.isEmpty {
                guard current.seq == seq, current.shown == shown else { return false }
            } else {
                view.current = (seq, shown)
            }
            view.pages[page.id] = page
            views[board] = view
            return true
        }
    }

    /// Detaches `page` and returns what it shows (nil when it was not attached).
    func detach(_ page: ObjectIdentifier, board: BoardID) -> LiveSession.Shown? {
        views.withLock { views in
            guard var view = views[board], view.pages.removeValue(forKey: page) != nil else { return nil }
            views[board] = view
            return view.current?.shown
        }
    }

    /// An attached page's session has the confirmed `board`, changed by `changes` since its previous board. When
    /// the view is older, the diff (or, when the change cannot be shown as one, the whole board) is encoded once
    /// and written to every attached page.
    ///
    /// `changes` covers everything since the view's seq: every attached session advances the view with each of its
    /// boards in seq order, so the view is at least at this session's previous board, and the client skips only
    /// boards whose deltas changed nothing shown.
    func advance(_ board: Board, changes: BoardChanges, encode: (any Encodable) -> ByteBuffer?) {
        // Under the lock, writes included: a page detached or attached meanwhile gets every line of the view's up to
        // that moment and none after, in order (the writes only queue on the pages' loops).
        views.withLock { views in
            guard var view = views[board.id], let current = view.current, board.seq > current.seq else { return }
            let line: ByteBuffer?
            if let diff = LiveSession.diff(from: current.shown, to: board, changes: changes) {
                line = encode(LiveMessage.Diff(diff.diff))
                view.current = (board.seq, diff.shown)
            } else {
                line = encode(LiveMessage.FullBoard(board))
                view.current = (board.seq, LiveSession.Shown(board))
            }
            views[board.id] = view
            guard let line else { return }
            for page in view.pages.values { page.send(line) }
        }
    }

    /// How many pages are attached to `board`'s view (for tests).
    func attachedCount(_ board: BoardID) -> Int { views.withLock { $0[board]?.pages.count ?? 0 } }
}
