import BoardClient
import BoardCore
import TerminalUI

/// Everything the full-screen `cork` shows, as a value: `update` changes it, `render` draws it (STYLE.md 13).
public struct TUIModel: Sendable {
    /// Which pane has the keyboard.
    public enum Focus: Hashable, Sendable { case board, feed, input }

    /// A card picked up and carried across the board (its ghost is drawn where it would land).
    public struct Carry: Hashable, Sendable {
        /// The card carried.
        public var card: CardID
        /// The column index it hovers over.
        public var column: Int
        /// The position in that column's visible cards.
        public var index: Int
    }

    /// What the input line is for.
    public enum InputPurpose: Hashable, Sendable {
        /// Chat, or a `/command`.
        case chat
        /// The title of a new card in a column.
        case newCard(ColumnID)
        /// A card's new title.
        case editTitle(CardID)
        /// A comment on a card.
        case comment(CardID)
        /// A column's new name.
        case renameColumn(ColumnID)
        /// The name of a new column, added at this index.
        case newColumn(index: Int)
        /// A column's WIP limit: `N`, `N hard`, or `none`.
        case wipLimit(ColumnID)
        /// A new checklist item on a card.
        case checklistItem(CardID)
        /// A new milestone: its title, and a due date (`YYYY-MM-DD`) as the last word if it has one.
        case newMilestone
        /// A new board: its id, then its name.
        case newBoard
        /// What to look for among the archived cards.
        case archiveSearch
    }

    /// An overlay drawn over the board.
    public enum Overlay: Hashable, Sendable {
        /// The key help (`?`).
        case help
        /// One card in full, with its checklist (``TUIModel/overlayRow`` is the checklist item selected).
        case detail(CardID)
        /// The milestones, with progress and due dates (`M`).
        case milestones
        /// The boards this user is a member of, to switch to or create one (`b`, `/board`).
        case boards
        /// The members with their roles and who is online (`/members`).
        case members
        /// The archived cards, to search and restore (`/archive`).
        case archive
        /// The user's inbox, newest first, on every board (`I`, `/inbox`).
        case inbox
    }

    /// The terminal size.
    public var width: Int
    /// The terminal height.
    public var height: Int
    /// The terminal's own size when it is smaller than ``minimumSize`` (``width`` and ``height`` are then the
    /// minimum, which the board is laid out for); nil otherwise.
    public var undersized: TerminalSize?
    /// The smallest terminal the board is drawn in; a smaller one shows only a line asking for more room.
    public static let minimumSize = TerminalSize(width: 20, height: 8)
    /// The signed-in user, after `welcome`.
    public var user: UserID? { didSet { visibleVersion &+= 1 } }
    /// The board followed.
    public var boardID: BoardID
    /// The board as shown (confirmed + pending), once loaded.
    public var board: Board? {
        didSet {
            visibleVersion &+= 1
            if oldValue?.members != board?.members { clashingInitials = Self.clashingPairs(board) }
        }
    }
    /// The initials two members of the board share (worked out when the members change, not per card drawn).
    var clashingInitials: Set<String> = []
    /// The connection's state, for the status line.
    public var connection: ConnectionState = .connecting(endpoint: "")
    /// Ops queued or unanswered.
    public var pendingCount = 0
    /// The focused pane.
    public var focus: Focus = .board
    /// The selected column (index into the board's columns).
    public var column = 0
    /// The selected card's position in the column's visible cards.
    public var row = 0
    /// Whether the selection is on the column's header (`k` above the first card): column keys apply.
    public var onHeader = false
    /// The card being carried, if any.
    public var carry: Carry?
    /// Whether multi-select is on (`v`), and what is marked.
    public var marking = false
    /// Cards marked for a bulk action.
    public var marked: Set<CardID> = []
    /// The input line's text and cursor.
    public var input = LineEditor()
    /// The chat line left with Esc before it was sent, until the input line is opened again.
    public var draft: String?
    /// A new column's name whose warning about becoming the last (done) column was given: Enter again adds it.
    var confirmedLastColumn: String?
    /// What the key that opened the input line put in it (`/`'s `/filter `): left as it was, it is no draft.
    var inputPrefill: String?
    /// Whether the input line was opened by `/` on the board to filter: the filter then goes back to the board (to
    /// move among the cards it shows); one typed as a command in the input line stays there, so the next thing typed
    /// is not read as board keys.
    public var filterFromBoard = false
    /// Whether ops still queued when the person quits are kept for the next start (a journal file, which another
    /// cork of the same account on the board may hold instead).
    public var journalKept = false
    /// The role last asked for each member in `/members` since the board last changed (keys faster than the board).
    var askedRoles: [UserID: Role] = [:]
    /// The title a title edit began from: when someone else renames the card meanwhile, Enter warns once instead of
    /// replacing their title unseen.
    public var titleEditBase: String?
    /// The feed's words for changes, which remember the recent undos.
    public var feedWords = FeedWords()
    /// The input line as a completion left it, ending in the space it added (a punctuation mark typed next replaces
    /// that space).
    var completedWithSpace: String?
    /// Tab was pressed after `/board ` before the board list was known: complete once it arrives.
    var completeWhenBoardsArrive = false
    /// How many of a board's latest changes and chat lines a starting feed shows.
    public static let backlogLines = 30
    /// What the input line is for.
    public var purpose: InputPurpose = .chat
    /// Tab completion under way, if the last key was Tab.
    public var completion: TabCompletion?
    /// The feed, oldest first (at most ``feedMax`` entries).
    public var feed: [FeedEntry] = []
    /// Feed lines scrolled back from the bottom.
    public var feedScroll = 0
    /// Feed entries added while the feed was scrolled back or unfocused and not seen yet.
    public var unread = 0
    /// The active filter: its text and parsed query.
    public var filter: (text: String, query: Query)? { didSet { visibleVersion &+= 1 } }
    /// Who is on the board, by session.
    public var presence: [SessionID: PresenceEntry] = [:]
    /// Cards changed by others recently, with the tick until which they stay highlighted.
    public var highlights: [CardID: Int] = [:]
    /// The overlay shown, if any.
    public var overlay: Overlay?
    /// The row selected in a list overlay (milestones, boards, members, archive) or the detail's checklist.
    public var overlayRow = 0
    /// The boards this user is a member of, once the server listed them (for the picker and `/board` completion).
    public var boardList: [BoardSummary]?
    /// Why the boards could not be listed, while the picker waits for them (they are asked for again once connected).
    public var boardListFailure: String?
    /// What the archive view looks for (words of the title, or `#N`); empty shows every archived card.
    public var archiveSearch = ""
    /// This user's own changes, for undo (`u`) and redo (`U`).
    public var undo = UndoStack()
    /// A one-line notice in the status line (errors, confirmations). The next key clears it; so does the end of
    /// what it is about, when it has a ``noticeTopic``.
    public var notice: String? {
        didSet {
            noticeTopic = nil
            // A notice the status line cannot hold whole (it is cut with `…`) is also a feed line, where it wraps:
            // the ones that say what to do next are the longest.
            if let notice, notice != oldValue, DisplayWidth.of(" " + statusText) > width, feed.last?.text != notice {
                post(FeedEntry(notice, kind: .info))
            }
        }
    }
    /// What the notice is about, when that is still under way (set with ``say(_:about:)``; any other notice
    /// clears it).
    public var noticeTopic: NoticeTopic?
    /// Set after `q` with ops still queued: a second `q` quits.
    public var confirmingQuit = false
    /// The UI's clock, in ticks of ``tickMilliseconds`` (the runner sends them only while ``needsTicks``).
    public var tick = 0
    /// The tick at which the client retries the connection, while it is waiting to (the countdown's end).
    public var reconnectAt: Int?
    /// The open card's history, fetched when the detail opens.
    public var history: CardHistory?
    /// Today, for due-date colours and `due:` queries.
    public var today: Day { didSet { visibleVersion &+= 1 } }
    /// A refused description edit waiting for the user's choice (`/keep`, `/theirs`, `/merge`).
    public var conflict: DescriptionConflict?
    /// The last move refused because the card is blocked, which `/force REASON` makes again with that reason.
    public var blockedMove: BlockedMove?
    /// Whether the user is away (`/away`).
    public var away: String?
    /// A card this user just added, to select as soon as the board shows it.
    public var selectWhenShown: CardID?
    /// A card this user just moved (`J`/`K`, `H`/`L`, a drop): the selection is already where it goes, and the next
    /// board update puts it on that card wherever the move put it (not on whatever was at that place before).
    public var selectMoved: CardID?
    /// This user's ops shown on ``board`` before the client's update shows them (``submitShown(_:)``), with the
    /// mutation id the client gave each (nil until the runner says, right after submitting it). An update that does
    /// not reflect them yet (its `throughMut` is below their mut: it was made before they were submitted, and arrived
    /// after keys that came later) gets them applied again on top.
    var shownAhead: [(op: Op, mut: UInt64?)] = []
    /// The column the last of this user's moves put ``selectMoved`` in: the client's updates for the earlier moves of
    /// a burst (`L L`) show it on its way, and the selection follows it until it is there (or nothing is pending).
    var selectMovedTo: ColumnID?
    /// Whether the board shown has this client's pending ops on top (the last update was not confirmed): only then
    /// can a card's number change, when the server numbers a card added meanwhile after others' new cards.
    public var showsPending = false
    /// The server's limits (from `welcome`), for checking the input line while it is typed.
    public var limits = WireLimits.defaults
    /// How joins and leaves show in the feed (`/set joins`).
    public var joins: JoinsDisplay = .fold
    /// The user's inbox as this client knows it.
    public var inbox = InboxState()
    /// How a new inbox entry is announced besides its feed line (`/set notify`).
    public var notify: InboxNotify = .on
    /// The notification this terminal takes (the runner detects it from the environment).
    public var terminalNotification: TerminalNotification = .bell
    /// Moves on whenever something the shown cards depend on changes (``board``, ``filter``, ``user``, ``today``):
    /// the key of ``visible``.
    var visibleVersion = 0
    /// The shown cards of every column, for ``visibleVersion`` (rebuilt by ``refreshVisibleCards()``).
    var visible = VisibleCards()
    /// The most feed entries kept.
    public static let feedMax = 2_000

    /// A model for `board` at a terminal of `width`×`height`.
    public init(boardID: BoardID, width: Int, height: Int, today: Day) {
        self.boardID = boardID
        self.width = width
        self.height = height
        self.today = today
    }

    /// The board's columns.
    public var columns: [Column] { board?.columns ?? [] }

    /// The cards shown in column `index`: unarchived, in rank order, through the filter.
    ///
    /// Read from ``visible`` when it is current (`update` keeps it so); computed afresh otherwise.
    public func visibleCards(_ index: Int) -> [Card] {
        guard let board, columns.indices.contains(index) else { return [] }
        let id = columns[index].id
        if visible.version == visibleVersion { return visible.cards[id] ?? [] }
        let cards = board.cards(in: id)
        guard let filter else { return cards }
        let context = QueryContext(today: today, me: user)
        return cards.filter { filter.query.matches($0, in: board, context: context) }
    }

    /// How many unarchived cards column `index` holds, shown or filtered out (what its header and WIP limit count).
    public func cardCount(_ index: Int) -> Int {
        guard let board, columns.indices.contains(index) else { return 0 }
        let id = columns[index].id
        if visible.version == visibleVersion { return visible.totals[id] ?? 0 }
        return board.count(in: id)
    }

    /// Rebuilds ``visible`` if the board, the filter, the user or the day changed since it was built.
    mutating func refreshVisibleCards() {
        guard visible.version != visibleVersion else { return }
        guard let board else {
            visible = VisibleCards()
            return
        }
        visible = VisibleCards(
            version: visibleVersion, board: board, filter: filter?.query, context: QueryContext(today: today, me: user))
    }

    /// Brings ``visible`` to ``board`` after an update that made `changes` to `previous` (the board ``visible`` was
    /// current for, or nil): only the changed cards' columns when the update names them (someone's move or edit on a
    /// 1,000-card board then costs microseconds, not a copy of every card), else rebuilt.
    mutating func refreshVisibleCards(changes: BoardChanges, from previous: Board?) {
        guard let previous, let board, case .parts(let cards, let columns) = changes,
            visible.update(
                cards: cards, columns: columns, from: previous, to: board, filter: filter?.query,
                context: QueryContext(today: today, me: user), version: visibleVersion)
        else { return refreshVisibleCards() }
    }

    /// The selected card, if the selection is on one.
    public var selectedCard: Card? {
        if onHeader { return nil }
        let cards = visibleCards(column)
        return cards.indices.contains(row) ? cards[row] : nil
    }

    /// The cards a bulk action applies to: the marked ones, else the selected one.
    public var targets: [Card] {
        guard let board else { return [] }
        if !marked.isEmpty { return marked.compactMap { board.cards[$0] }.sorted { $0.number < $1.number } }
        return selectedCard.map { [$0] } ?? []
    }

    /// Selects `card` where it is shown; false when it is not (archived, filtered out, gone).
    public mutating func select(card: CardID) -> Bool {
        for index in columns.indices {
            if let position = visibleCards(index).firstIndex(where: { $0.id == card }) {
                column = index
                row = position
                return true
            }
        }
        return false
    }

    /// Keeps the selection inside the board after it changed.
    public mutating func clampSelection() {
        column = max(0, min(column, columns.count - 1))
        row = max(0, min(row, visibleCards(column).count - 1))
        if let carry, !columns.indices.contains(carry.column) { self.carry = nil }
    }

    /// Forgets everything about the board followed until now (`/board`): the new one loads from scratch. The feed
    /// stays, as a chat client's scrollback does across channels.
    public mutating func switchBoard(to id: BoardID) {
        boardID = id
        board = nil
        presence = [:]
        filter = nil
        column = 0
        row = 0
        onHeader = false
        carry = nil
        marking = false
        marked = []
        highlights = [:]
        overlay = nil
        overlayRow = 0
        archiveSearch = ""
        history = nil
        conflict = nil
        blockedMove = nil
        undo = UndoStack()
        selectWhenShown = nil
        post(FeedEntry("switching to board \(id)", kind: .info))
    }

    /// How far back, in feed lines, a join or leave still folds into the last presence line.
    public static let joinsFoldWindow = 50

    /// Reports a join or leave as ``joins`` says: its own line, folded into the last presence line (which moves to
    /// the bottom), or not at all.
    public mutating func postPresence(_ who: UserID, joined: Bool) {
        switch joins {
        case .off:
            return
        case .on:
            post(FeedEntry("\(who) \(joined ? "joined" : "left")", kind: .presence))
        case .fold:
            guard let index = feed.indices.suffix(TUIModel.joinsFoldWindow).last(where: { feed[$0].tally != nil }),
                var tally = feed[index].tally
            else {
                var tally = PresenceTally()
                tally.add(who, joined: joined)
                var entry = FeedEntry(tally.text, kind: .presence)
                entry.tally = tally
                post(entry)
                return
            }
            tally.add(who, joined: joined)
            var entry = feed[index]
            entry.tally = tally
            entry.text = tally.text
            // Scrolled back, the line changes where it is (moving it would shift what the user reads).
            if feedScroll > 0 || index == feed.count - 1 {
                feed[index] = entry
                return
            }
            if index >= feed.count - unread { unread -= 1 }
            feed.remove(at: index)
            post(entry)
        }
    }

    /// Folds a reorder into the feed's last line when that line is the same person's reorder of the same card, as
    /// `bob reordered #3 in TODO ×4`: a card walked up a column a step at a time is one line, not one per key.
    /// Scrolled back, the line is left alone and the reorder gets its own.
    mutating func foldReorder(_ entry: FeedEntry) -> Bool {
        guard feedScroll == 0, let reorder = entry.reorder, let index = feed.indices.last,
            let last = feed[index].reorder, last.card == reorder.card, feed[index].actor == entry.actor
        else { return false }
        var folded = entry
        folded.reorder?.count = last.count + 1
        folded.text = "\(entry.text) ×\(last.count + 1)"
        folded.mentionsMe = feed[index].mentionsMe || entry.mentionsMe
        feed[index] = folded
        return true
    }

    /// Adds a feed line.
    public mutating func post(_ entry: FeedEntry) {
        feed.append(entry)
        if feed.count > TUIModel.feedMax { feed.removeFirst(feed.count - TUIModel.feedMax) }
        if focus != .feed || feedScroll > 0 { unread += 1 }
        if feedScroll > 0 { feedScroll += 1 }
    }
}

/// How joins and leaves show in the feed.
public enum JoinsDisplay: String, Hashable, Sendable, CaseIterable {
    /// Each on its own line.
    case on
    /// A run of them folded into one line, kept at the bottom while the run goes on (the default).
    case fold
    /// Not at all (`/who` still lists who is here).
    case off
}

/// One line of the feed.
public struct FeedEntry: Hashable, Sendable {
    /// What kind of line it is (for its colour).
    public enum Kind: Hashable, Sendable {
        /// A change on the board.
        case activity
        /// A chat line.
        case chat
        /// Someone joined or left.
        case presence
        /// A rejected op or an error.
        case error
        /// A notice from the client itself.
        case info
        /// A new entry of the user's inbox.
        case inbox
    }

    /// The sentence.
    public var text: String
    /// Its kind.
    public var kind: Kind
    /// Whether it mentions the user (`@user`).
    public var mentionsMe: Bool
    /// The change's seq, when it is one.
    public var seq: UInt64?
    /// The joins and leaves folded into this line, when it is a folded presence line.
    public var tally: PresenceTally?
    /// Whether the line is `/lastlog`'s own answer (which a later `/lastlog` does not search).
    public var isLastlog = false
    /// Who made the change or said the line, when it is one.
    public var actor: UserID?
    /// The text of the user's own chat line while it waits for the connection: the line goes when it is sent.
    public var queuedChat: String?
    /// The card a reorder line is about and how many reorders of it by the same person it folds.
    public var reorder: Reorder?

    /// A run of one person's reorders of one card, folded into one line.
    public struct Reorder: Hashable, Sendable {
        public var card: CardID
        public var count: Int
    }

    /// A feed line.
    public init(_ text: String, kind: Kind, mentionsMe: Bool = false, seq: UInt64? = nil) {
        self.text = text
        self.kind = kind
        self.mentionsMe = mentionsMe
        self.seq = seq
    }
}
