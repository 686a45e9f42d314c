import BoardClient
import BoardCore
import TerminalUI

extension TUIModel {
    /// Applies one message; returns what the runner must do. Pure: the same model and message give the same result.
    public mutating func update(_ message: TUIMessage) -> [TUIEffect] {
        // The shown cards are cached per change of the board, filter, user or day: current before the message (so
        // its keys read them) and after it (so the frame drawn next does).
        refreshVisibleCards()
        defer { refreshVisibleCards() }
        return respond(to: message)
    }

    /// `update`'s work, with ``visible`` current on entry.
    mutating func respond(to message: TUIMessage) -> [TUIEffect] {
        switch message {
        case .key(let event):
            return handleKey(event)
        case .resize(let width, let height):
            let minimum = TUIModel.minimumSize
            self.width = max(minimum.width, width)
            self.height = max(minimum.height, height)
            undersized = width < minimum.width || height < minimum.height
                ? TerminalSize(width: max(1, width), height: max(1, height)) : nil
            return [.repaint]
        case .client(let event):
            return handle(event)
        case .pending(let count):
            pendingCount = count
            if count == 0 { confirmingQuit = false }
            return []
        case .tick:
            tick += 1
            highlights = highlights.filter { $0.value > tick }
            return []
        case .edited(let purpose, let text):
            return edited(purpose, text)
        case .continued:
            return [.redraw]
        case .backlog(let board, let page):
            guard board == boardID, let current = self.board else { return [] }
            showBacklog(page.activities, on: current)
            return []
        case .inbox(let entries, let unread):
            return inboxPage(entries, unread: unread)
        case .inboxFailed(let reason):
            return inboxFailed(reason)
        case .boards(let list):
            boardList = list
            boardListFailure = nil
            if overlay == .boards { overlayRow = list.firstIndex { $0.board == boardID } ?? 0 }
            if completeWhenBoardsArrive {
                completeWhenBoardsArrive = false
                if notice == "listing the boards…" { notice = nil }
                if focus == .input, input.text.hasPrefix("/board ") { complete() }
            }
            return []
        case .boardsFailed(let reason):
            post(FeedEntry("boards: \(reason)", kind: .error))
            if overlay == .boards, boardList == nil { boardListFailure = reason }
            // A refused creation ends the "creating board …" notice with why.
            if notice?.hasPrefix("creating board ") == true { notice = "boards: \(reason)" }
            return []
        case .boardCreated(let id):
            boardList = nil
            if notice?.hasPrefix("creating board ") == true { notice = nil }
            post(FeedEntry("created board \(id)", kind: .info))
            switchBoard(to: id)
            return [.switchBoard(id)]
        case .history(let card, let page):
            guard history?.card == card else { return [] }
            history?.state = .loaded(page.activities.filter { $0.card == card }, more: page.more)
            return []
        case .historyFailed(let card, let reason):
            guard history?.card == card else { return [] }
            history?.state = .failed(reason)
            return []
        }
    }

    /// `update` as the Elm architecture writes it: the new model and the effects.
    public func updated(_ message: TUIMessage) -> (TUIModel, [TUIEffect]) {
        var model = self
        let effects = model.update(message)
        return (model, effects)
    }

    /// How long a card another person changed stays highlighted, in ticks.
    public static let highlightTicks = 6

    mutating func handle(_ event: ClientEvent) -> [TUIEffect] {
        switch event {
        case .board(let update):
            // After `/board`, the old board's last events may still be on their way.
            guard update.board.id == boardID else { return [] }
            let carried = carry.flatMap { update.board.cards[$0.card] }
            let previous = board
            let wasCurrent = visible.version == visibleVersion
            let shown = rebased(update)
            // The selection is a place (column, row); it stays on its card when others reorder, add or remove cards
            // above it in the same column, so the keys act on the card the user chose and the others' marker
            // stays on it. A card that left the column leaves the selection at its place there.
            // A card this user moved is followed wherever it went.
            let followed = carry != nil ? nil
                : selectMoved.map { ($0, ColumnID?.none) }
                ?? selectedCard.flatMap { card in columns.indices.contains(column) ? (card.id, columns[column].id) : nil }
            // Followed until the card is where this user's last move put it: an update for an earlier move of a burst
            // shows it on its way. A move the server refuses leaves it short of there, so it ends once nothing is
            // pending.
            if let moved = selectMoved, let to = selectMovedTo, shown.cards[moved]?.column != to, !update.isConfirmed {
            } else {
                selectMoved = nil
                selectMovedTo = nil
            }
            if showsPending, let previous { noteRenumbered(from: previous, to: update.board) }
            showsPending = !update.isConfirmed
            // In the members list the selection is a person: one added above, or a role that re-sorts, leaves it
            // on them, so that the next role key is not someone else's.
            let rows = overlay == .members ? memberRows : []
            let selectedMember = rows.indices.contains(overlayRow) ? rows[overlayRow].id : nil
            board = shown
            askedRoles = [:]
            if notice == TUIModel.notLoaded { notice = nil }
            if let selectedMember, let row = memberRows.firstIndex(where: { $0.id == selectedMember }) { overlayRow = row }
            refreshVisibleCards(changes: update.changes, from: wasCurrent ? previous : nil)
            if let (card, columnID) = followed {
                if columnID == nil {
                    _ = select(card: card)
                } else if let index = columns.firstIndex(where: { $0.id == columnID }),
                    let position = visibleCards(index).firstIndex(where: { $0.id == card })
                {
                    column = index
                    row = position
                }
            }
            for card in update.changedByOthers { highlights[card] = tick + TUIModel.highlightTicks }
            let carryLost = carry != nil && (carried == nil || carried?.archived == true)
            if carryLost, let lost = carry.flatMap({ previous?.cards[$0.card] }) {
                // Said with the card, so that the Enter meant as the drop is not taken for the card selected now.
                notice = "#\(lost.number) \(FeedText.quotedTitle(lost.title)) was \(carried == nil ? "removed" : "archived") while you carried it; nothing was moved"
            } else if carryLost {
                notice = "the card you carried is gone"
            }
            if carryLost { carry = nil }
            // Someone else moved the carried card to another column: the drop would move it back unseen.
            if !carryLost, let carry, update.changedByOthers.contains(carry.card), let now = carried,
                let before = previous?.cards[carry.card], before.column != now.column,
                let name = update.board.columns.first(where: { $0.id == now.column })?.name
            {
                // Into the column the card is held over: both keys leave it there, Enter at the place held.
                let heldOver = columns.indices.contains(carry.column) && columns[carry.column].id == now.column
                notice = heldOver
                    ? "#\(now.number) was moved to \(name), where you hold it, while you carried it: Enter drops it at your place, Esc where it went"
                    : "#\(now.number) was moved to \(name) while you carried it: Enter still drops it here, Esc leaves it in \(name)"
            }
            // Typing about a card someone archived meanwhile: said while the line is still open.
            if let card = cardBeingTyped, previous?.cards[card]?.archived == false, let now = update.board.cards[card], now.archived {
                notice = "#\(now.number) was archived while you typed: Enter still saves it to the archived card, Esc drops it"
            }
            marked = marked.filter { update.board.cards[$0].map { !$0.archived } ?? false }
            clampSelection()
            if let added = selectWhenShown, update.board.cards[added] != nil, carry == nil {
                selectWhenShown = nil
                if select(card: added) { return presenceViewing() }
            }
            // The drag marker ends with the drag: the others see this user viewing the card now selected.
            return carryLost ? presenceViewing() : []
        case .activity(let event):
            guard event.board.id == boardID else { return [] }
            history?.append(event.activity)
            if event.isOwn, let card = event.activity.card { endNotice(about: .cards([card])) }
            let isChat = event.activity.kind == "chat"
            if isChat, event.isOwn, let queued = feed.firstIndex(where: { $0.queuedChat == event.activity.text }) {
                feed.remove(at: queued)
            }
            feedWords.note(event.activity)
            let own = event.isOwn && !isChat ? recordOwn(event.activity, after: event.board) : nil
            // The whole text: the feed wraps it, and /lastlog searches it.
            let text = own ?? feedWords.sentence(event.activity, after: event.board)
            let mentions = user.map { text.contains("@\($0.rawValue)") } ?? false
            var entry = FeedEntry(text, kind: isChat ? .chat : .activity, mentionsMe: mentions && !event.isOwn, seq: event.activity.seq)
            entry.actor = event.activity.actor
            if let card = event.activity.card, event.activity.kind == Op.Kind.cardMove.rawValue,
                event.activity.changes["column"] == nil, event.activity.undoOf == nil
            {
                entry.reorder = FeedEntry.Reorder(card: card, count: 1)
                if foldReorder(entry) { return [] }
            }
            post(entry)
            return []
        case .presence(let event):
            let before = presence
            presence = event.sessions
            // Joins and leaves are counted per person: a second session of someone already here (another terminal,
            // a resubscribe before the old session is gone) is not a second "joined", and they leave with their last.
            func here(_ who: UserID, in sessions: [SessionID: PresenceEntry]) -> Bool {
                sessions.values.contains { $0.user == who }
            }
            switch event.change {
            case .updated(let entry) where before[entry.session] == nil && entry.user != user && !here(entry.user, in: before):
                postPresence(entry.user, joined: true)
            case .left(let session, let who) where before[session] != nil && who != user && !here(who, in: presence):
                postPresence(who, joined: false)
            default:
                break
            }
            return []
        case .rejected(let rejected):
            return rejectedOp(rejected)
        case .connection(let state):
            let was = connection
            connection = state
            reconnectAt = nil
            // Offline, who is where is not known: the markers and ghosts go until the server lists them again after
            // subscribing (the list, not a join each, so nobody is announced as joining).
            if case .connected = state {} else { presence = [:] }
            // "reconnecting now" holds while that dial is under way; any other change makes such a notice stale.
            if let shown = notice, TUIModel.connectionNotices.contains(shown) {
                if case .connecting = state, shown == TUIModel.reconnectingNow {} else { notice = nil }
            }
            switch state {
            case .connected(let endpoint, let user):
                self.user = user
                var effects: [TUIEffect] = []
                if case .connected = was {} else {
                    post(FeedEntry("connected to \(endpoint) as \(user)", kind: .info))
                    // The inbox's count (and entries) as they are now: pushes do not cover the time offline.
                    if inbox.available {
                        inbox.loading = true
                        effects.append(.fetchInbox)
                    }
                    // The picker opened offline still waits for its list: asked for again now.
                    if overlay == .boards, boardList == nil {
                        boardListFailure = nil
                        effects.append(.listBoards)
                    }
                }
                // A history that could not be read (offline, timed out) is asked for again once connected.
                if case .detail(let card)? = overlay, history?.card == card, case .failed? = history?.state {
                    history = CardHistory(card: card)
                    return effects + [.fetchHistory(card)]
                }
                return effects
            case .reconnecting(let delay, let error):
                reconnectAt = tick(after: delay)
                if case .connected = was {
                    // The client library's own words may already say it ("lost the connection to …: …").
                    let line = error.isEmpty ? "connection lost" : error.hasPrefix("lost the connection") ? error : "connection lost: \(error)"
                    post(FeedEntry(line, kind: .error))
                }
            case .stopped(let error?):
                post(FeedEntry("stopped: \(error.message)", kind: .error))
            default:
                break
            }
            return []
        case .serverError(let error):
            post(FeedEntry("server: \(error.code.rawValue): \(error.message)", kind: .error))
            return []
        case .inbox(let event):
            return inboxEvent(event)
        }
    }

    mutating func rejectedOp(_ rejected: RejectedOp) -> [TUIEffect] {
        let reject = rejected.reject
        if case .undo(let seq) = rejected.op.request, rejected.op.board == boardID, refusedUndo(of: seq, reject) {
            return []
        }
        if case .op(.chat(let text)) = rejected.op.request, let queued = feed.firstIndex(where: { $0.queuedChat == text }) {
            feed.remove(at: queued)
        }
        post(FeedEntry(refusalSentence(rejected), kind: .error))
        if let move = BlockedMove(refused: rejected, on: boardID) { blockedMove = move }
        if case .op(let op) = rejected.op.request, let card = op.card { endNotice(about: .cards([card])) }
        if case .op(.addCard(let add)) = rejected.op.request, add.card == selectWhenShown { selectWhenShown = nil }
        // The selection follows the card that rolls back (the rollback comes just after this event), so the next
        // key acts on it, not on whatever took its place.
        if rejected.op.board == boardID, case .op(let op) = rejected.op.request, let card = op.card, board?.cards[card] != nil {
            selectWhenShown = card
        }
        if rejected.op.board == boardID, restoreRefusedText(rejected.op.request, reason: reject.message) { return [] }
        // A conflict on a board left since (`/board`) is reported but cannot be resolved here.
        guard reject.code == .rejected(.conflict), rejected.op.board == boardID,
            case .op(.editCard(let edit)) = rejected.op.request,
            let mine = edit.description, case .object(let current)? = reject.current,
            case .string(let theirs)? = current["description"], case .int(let seq)? = current["seq"]
        else { return [] }
        conflict = DescriptionConflict(card: edit.card, mine: mine, theirs: theirs, seq: UInt64(seq))
        endNotice(about: .conflict)
        // The change the conflict is with is in the feed when it happened while this client watched: name its author.
        let who = feed.last { $0.seq == UInt64(seq) }?.actor.map(\.rawValue) ?? "someone"
        post(FeedEntry("\(who) changed that description first: /keep mine, /theirs, or /merge in $EDITOR", kind: .info))
        return []
    }

    /// A card added while others added theirs (offline, or in a race) is numbered by the server in commit order, so
    /// the number shown at first may go to another card: said in the feed, since the user may have written it down
    /// or told someone.
    mutating func noteRenumbered(from previous: Board, to now: Board) {
        for (id, card) in previous.cards {
            guard let number = now.cards[id]?.number, number != card.number else { continue }
            post(FeedEntry("\"\(card.title)\" is #\(number) now, not #\(card.number): the server numbered it after cards others added first", kind: .info))
        }
    }

    /// `$EDITOR` returned: the new text is submitted, and either way the others are told at once that this user
    /// no longer edits the card (the ✎ marker must not outlive the editor, whatever came of it).
    mutating func edited(_ purpose: EditorPurpose, _ text: String?) -> [TUIEffect] {
        let card: CardID
        switch purpose {
        case .description(let id, _), .mergeDescription(let id, _): card = id
        }
        let viewing = TUIEffect.presence(.viewing, card: card)
        guard let text else {
            notice = "unchanged"
            return [viewing]
        }
        if case .mergeDescription = purpose, DescriptionConflict.hasMarkers(text) {
            // Saving this would put the markers in the description: keep it as the draft, and say so.
            conflict?.draft = text
            post(FeedEntry(
                "the merged text still has conflict markers (<<<<<<< ======= >>>>>>>), so it was not saved: "
                    + "/merge edits it again, /keep saves yours as it was, /theirs keeps theirs", kind: .error))
            return [viewing]
        }
        switch purpose {
        case .description(let card, let base):
            conflict = nil
            return [.submit(.editCard(EditCard(card: card, description: text, baseSeq: base))), viewing]
        case .mergeDescription(let card, let base):
            let merged = conflict?.merged(text) ?? text
            conflict = nil
            return [.submit(.editCard(EditCard(card: card, description: merged, baseSeq: base))), viewing]
        }
    }
}

extension TUIModel {
    /// Puts a board's recent activity at the top of the feed, oldest first, above what arrived live meanwhile (a
    /// change already in the feed is not repeated), under a line that says where the backlog ends. Not unread.
    mutating func showBacklog(_ activities: [Activity], on board: Board) {
        let known = Set(feed.compactMap(\.seq))
        let firstLive = feed.compactMap(\.seq).min() ?? .max
        let earlier = activities.filter { !known.contains($0.seq) && $0.seq < firstLive }.sorted { $0.seq < $1.seq }
        guard !earlier.isEmpty else { return }
        var lines: [FeedEntry] = earlier.map { activity in
            let isChat = activity.kind == "chat"
            var entry = FeedEntry(feedWords.sentence(activity, after: board), kind: isChat ? .chat : .activity, seq: activity.seq)
            entry.actor = activity.actor
            return entry
        }
        lines.append(FeedEntry("— the \(earlier.count) latest before you came; live from here —", kind: .info))
        feed.insert(contentsOf: lines, at: 0)
    }
}
