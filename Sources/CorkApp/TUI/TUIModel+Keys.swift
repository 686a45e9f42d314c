import BoardClient
import BoardCore
import TerminalUI

extension TUIModel {
    mutating func handleKey(_ event: KeyEvent) -> [TUIEffect] {
        notice = nil
        if case .paste(let text) = event.key {
            if focus != .input { focus = .input }
            input.insert(text)
            return []
        }
        if event.key == .tab && event.modifiers.isEmpty && focus != .input {
            return cycleFocus()
        }
        if event == .ctrl("c") { return [.quit] }
        if event == .ctrl("z") { return [.suspend] }
        // Ctrl-L repaints the whole screen (as in vi, less and htop): whatever else wrote to the terminal is gone.
        if event == .ctrl("l") { return [.repaint] }
        // A control key is not its letter: outside the input line (whose editing keys are its own) an unbound one
        // does nothing, so Ctrl-K never moves the selection and Ctrl-J never opens a card.
        if event.modifiers.contains(.ctrl), focus != .input { return [] }
        if event == .character("r"), focus != .input, overlay == nil, carry == nil {
            return reconnectKey()
        }
        switch focus {
        case .input: return inputKey(event)
        case .feed: return feedKey(event)
        case .board: return boardKey(event)
        }
    }

    mutating func cycleFocus() -> [TUIEffect] {
        switch focus {
        case .board: focus = .feed
        case .feed:
            focus = .input
        case .input: focus = .board
        }
        if focus == .feed { unread = 0 }
        if focus == .input, input.text.isEmpty, purpose == .chat, let draft {
            input = LineEditor(draft)
            self.draft = nil
        }
        return []
    }

    // MARK: - Feed

    mutating func feedKey(_ event: KeyEvent) -> [TUIEffect] {
        let page = max(1, feedHeight - 2)
        switch event.key {
        case .up, .character("k"): feedScroll = min(feedScrollMax, feedScroll + 1)
        case .down, .character("j"): feedScroll = max(0, min(feedScroll, feedScrollMax) - 1)
        case .pageUp: feedScroll = min(feedScrollMax, feedScroll + page)
        case .pageDown: feedScroll = max(0, min(feedScroll, feedScrollMax) - page)
        case .end, .character("G"): feedScroll = 0
        case .home, .character("g"): feedScroll = feedScrollMax
        case .escape: focus = .board
        case .character("/"):
            focus = .input
            input.set("/")
        case .character("q"): return quitKey()
        default: break
        }
        if feedScroll == 0 { unread = 0 }
        return []
    }

    // MARK: - Board

    mutating func boardKey(_ event: KeyEvent) -> [TUIEffect] {
        if let overlay { return overlayKey(overlay, event) }
        if carry != nil { return carryKey(event) }
        if onHeader, let effects = headerKey(event) { return effects }
        switch (event.key, event.modifiers.contains(.shift)) {
        case (.left, false), (.character("h"), _): return select(column: column - 1)
        case (.right, false), (.character("l"), _): return select(column: column + 1)
        case (.up, false), (.character("k"), _):
            if row == 0 || visibleCards(column).isEmpty { return selectHeader() }
            return select(row: row - 1)
        case (.down, false), (.character("j"), _): return select(row: onHeader ? 0 : row + 1)
        case (.home, _), (.character("g"), _): return select(row: 0)
        case (.end, _), (.character("G"), _): return select(row: visibleCards(column).count - 1)
        case (.pageUp, _): return select(row: row - cardsPerPage)
        case (.pageDown, _): return select(row: row + cardsPerPage)
        case (.character("K"), _), (.up, true): return reorder(by: -1)
        case (.character("J"), _), (.down, true): return reorder(by: 1)
        case (.character("H"), _), (.left, true): return moveTargets(toColumn: column - 1)
        case (.character("L"), _), (.right, true): return moveTargets(toColumn: column + 1)
        case (.enter, _):
            guard let card = selectedCard else { return [] }
            overlay = .detail(card.id)
            overlayRow = 0
            history = CardHistory(card: card.id)
            return [.presence(.viewing, card: card.id), .fetchHistory(card.id)]
        case (.character(" "), _), (.character("m"), _):
            if marking, let card = selectedCard {
                if marked.contains(card.id) { marked.remove(card.id) } else { marked.insert(card.id) }
                return []
            }
            return pickUp()
        case (.character("v"), _):
            marking.toggle()
            if !marking { marked = [] }
            notice = marking ? "Space marks · H/L move · x archives · /label all" : nil
            return []
        case (.escape, _):
            marking = false
            marked = []
            onHeader = false
            return []
        case (.character("n"), _):
            guard columns.indices.contains(column) else { return [] }
            return startInput(.newCard(columns[column].id), text: "")
        case (.character("e"), _):
            guard let card = selectedCard else { return [] }
            return startInput(.editTitle(card.id), text: card.title)
        case (.character("E"), _):
            guard let card = selectedCard else { return [] }
            return editDescription(card.id)
        case (.character("x"), _):
            let effects = targets.map { TUIEffect.submit(.archiveCard(card: $0.id)) }
            marked = []
            marking = false
            return effects
        case (.character("C"), _):
            let effects = targets.map { TUIEffect.submit($0.closed ? .reopenCard(card: $0.id) : .closeCard(card: $0.id)) }
            return effects
        case (.character("u"), _):
            return undoKey(.undo)
        case (.character("U"), _):
            return undoKey(.redo)
        case (.character("/"), _):
            // The current query, to refine it.
            let effects = startInput(.chat, text: "/filter " + (filter.map { $0.text + " " } ?? ""))
            filterFromBoard = focus == .input
            return effects
        case (.character("?"), _):
            overlay = .help
            return []
        case (.character("M"), _):
            return openMilestones()
        case (.character("b"), _):
            return openBoards()
        case (.character("I"), _):
            return openInbox()
        case (.character("q"), _):
            return quitKey()
        case (.character(":"), _), (.character("i"), _):
            return startInput(.chat, text: "")
        default:
            return []
        }
    }

    /// `r`: while waiting to reconnect, dial now instead of waiting out the backoff.
    mutating func reconnectKey() -> [TUIEffect] {
        switch connection {
        case .reconnecting:
            notice = TUIModel.reconnectingNow
            return [.reconnectNow]
        case .connecting:
            notice = TUIModel.alreadyConnecting
            return []
        case .connected, .stopped:
            notice = TUIModel.reconnectOnlyWhileDown
            return []
        }
    }

    /// The notice `r` leaves until the connection is back (or the attempt failed).
    static let reconnectingNow = "reconnecting now"
    /// `r` while a dial is under way.
    static let alreadyConnecting = "already connecting"
    /// `r` while connected (or stopped for good).
    static let reconnectOnlyWhileDown = "r reconnects while the connection is down"

    /// Notices about the connection, which its next change of state makes stale.
    static let connectionNotices: Set<String> = [reconnectingNow, alreadyConnecting, reconnectOnlyWhileDown]

    mutating func quitKey() -> [TUIEffect] {
        if pendingCount > 0 && !confirmingQuit {
            confirmingQuit = true
            let ops = "\(pendingCount) op\(pendingCount == 1 ? "" : "s")"
            // What to press first: a narrow status line cuts the end.
            notice = journalKept
                ? "press q again to quit (\(ops) not yet confirmed: kept, and sent at the next start)"
                : "press q again to quit anyway (\(ops) not yet confirmed, lost on quitting: another cork keeps this board's queue)"
            return []
        }
        return [.quit]
    }

    mutating func select(column target: Int) -> [TUIEffect] {
        guard !columns.isEmpty else { return [] }
        let clamped = max(0, min(columns.count - 1, target))
        guard clamped != column else { return [] }
        column = clamped
        row = min(row, max(0, visibleCards(column).count - 1))
        return presenceViewing()
    }

    mutating func select(row target: Int) -> [TUIEffect] {
        let count = visibleCards(column).count
        guard count > 0 else { return [] }
        let leftHeader = onHeader
        onHeader = false
        let clamped = max(0, min(count - 1, target))
        guard clamped != row || leftHeader else { return [] }
        row = clamped
        return presenceViewing()
    }

    func presenceViewing() -> [TUIEffect] {
        [.presence(.viewing, card: selectedCard?.id)]
    }

    /// Whether the user only views this board (viewers may chat, nothing else).
    var isViewer: Bool { user.flatMap { board?.members[$0]?.role } == .viewer }

    /// What a viewer is told instead of opening an editor or a title line whose text the server would refuse.
    static let viewerRefusal = "you are a viewer here: viewers cannot change the board"

    mutating func startInput(_ purpose: InputPurpose, text: String) -> [TUIEffect] {
        if purpose != .chat, purpose != .archiveSearch, isViewer {
            notice = TUIModel.viewerRefusal
            return []
        }
        self.purpose = purpose
        focus = .input
        if purpose == .chat, text.isEmpty, let draft {
            // The chat line left with Esc comes back as it was.
            input = LineEditor(draft)
            self.draft = nil
            inputPrefill = nil
        } else {
            input = LineEditor(text)
            inputPrefill = text.isEmpty ? nil : text
        }
        if case .editTitle(let card) = purpose {
            titleEditBase = text
            return [.presence(.editing, card: card)]
        }
        return []
    }

    mutating func editDescription(_ id: CardID) -> [TUIEffect] {
        guard let card = board?.cards[id] else { return [] }
        guard !isViewer else {
            notice = TUIModel.viewerRefusal
            return []
        }
        return [.presence(.editing, card: id), .edit(card.description, .description(id, baseSeq: card.descriptionSeq))]
    }

    /// `J`/`K`: swap the selected card with its neighbour (one intent move: after or before that neighbour).
    mutating func reorder(by offset: Int) -> [TUIEffect] {
        let cards = visibleCards(column)
        guard let card = selectedCard, cards.indices.contains(row + offset) else { return [] }
        let neighbour = cards[row + offset]
        let placement = offset > 0 ? Placement(after: neighbour.id) : Placement(before: neighbour.id)
        row += offset
        selectMoved = card.id
        selectMovedTo = columns[column].id
        return submitShown([.moveCard(card: card.id, column: columns[column].id, placement: placement)])
    }

    /// Submits this user's `ops` and shows them on the model's board at once, as the client's next update will: a
    /// key that comes before that update (a held key, or several sent together) then acts on the board as it will
    /// be, not as it was, so `K K K` moves the chosen card three places instead of it and two of its neighbours.
    /// The client's update replaces the board (an op the server refuses is rolled back there).
    mutating func submitShown(_ ops: [Op]) -> [TUIEffect] {
        if let current = board {
            let (shown, applied) = applyingOwn(ops, to: current)
            board = shown
            shownAhead += applied.map { (op: $0, mut: nil) }
        }
        return ops.map { .submit($0) }
    }

    /// `board` with this user's `ops` applied in order, as the client applies them (up to the first it refuses), and
    /// the ops applied.
    func applyingOwn(_ ops: [Op], to board: Board) -> (Board, [Op]) {
        guard let user else { return (board, []) }
        var shown = board
        var applied: [Op] = []
        let role = shown.members[user]?.role ?? .editor
        for op in ops {
            let context = ApplyContext(actor: user, role: role, now: Timestamp(milliseconds: 0), seq: shown.seq + 1)
            guard case .success = shown.apply(op, context: context) else { break }
            applied.append(op)
        }
        return (shown, applied)
    }

    /// The runner submitted `op` and the client gave it `mut`: an op shown ahead is matched to it, in order.
    public mutating func submitted(_ op: Op, mut: UInt64) {
        if let index = shownAhead.firstIndex(where: { $0.mut == nil && $0.op == op }) { shownAhead[index].mut = mut }
    }

    /// The board an update shows, with this user's ops it does not reflect yet applied again on top (those the runner
    /// never matched to a mut are dropped: without a runner, as in tests, nothing is re-applied).
    mutating func rebased(_ update: BoardUpdate) -> Board {
        shownAhead.removeAll { entry in entry.mut.map { $0 <= update.throughMut } ?? true }
        guard !shownAhead.isEmpty else { return update.board }
        let (board, applied) = applyingOwn(shownAhead.map(\.op), to: update.board)
        if applied.count < shownAhead.count { shownAhead.removeLast(shownAhead.count - applied.count) }
        return board
    }

    /// `H`/`L`: move the selected (or marked) cards to the neighbouring column, at its bottom.
    mutating func moveTargets(toColumn target: Int) -> [TUIEffect] {
        guard columns.indices.contains(target) else { return [] }
        let moving = targets
        guard !moving.isEmpty else { return [] }
        let destination = columns[target].id
        marked = []
        marking = false
        let effects = submitShown(moving.map { .moveCard(card: $0.id, column: destination, placement: .bottom) })
        // The selection goes with the card; a move refused here (a hard WIP limit) as the server will refuse it
        // leaves the selection where it was, not on a neighbour that the next key would move instead.
        if let last = moving.last, let at = visibleCards(target).firstIndex(where: { $0.id == last.id }) {
            column = target
            row = at
            selectMoved = last.id
            selectMovedTo = destination
        }
        return effects
    }

    // MARK: - Carrying

    mutating func pickUp() -> [TUIEffect] {
        guard let card = selectedCard else { return [] }
        carry = Carry(card: card.id, column: column, index: row)
        notice = "carrying #\(card.number): arrows move it, Enter drops, Esc cancels"
        return [.presence(.dragging, card: card.id, column: columns[column].id, index: row)]
    }

    mutating func carryKey(_ event: KeyEvent) -> [TUIEffect] {
        guard var carried = carry else { return [] }
        switch event.key {
        case .left, .character("h"): carried.column = max(0, carried.column - 1)
        case .right, .character("l"): carried.column = min(columns.count - 1, carried.column + 1)
        case .up, .character("k"): carried.index -= 1
        case .down, .character("j"): carried.index += 1
        case .escape:
            carry = nil
            notice = "put back"
            return presenceViewing()
        case .enter, .character(" "), .character("m"):
            return drop()
        default:
            return []
        }
        let room = ghostSlots(in: carried.column, carrying: carried.card)
        carried.index = max(0, min(room, carried.index))
        carry = carried
        return [.presence(.dragging, card: carried.card, column: columns[carried.column].id, index: carried.index)]
    }

    /// "DOING is full (3/3)" when the carried card hovers over a column other than its own that is at its hard WIP
    /// limit (the drop would be refused), else nil.
    func carryTargetFull(carrying card: CardID) -> String? {
        guard let carry, carry.card == card, columns.indices.contains(carry.column), let board else { return nil }
        let column = columns[carry.column]
        guard let wip = column.wip, wip.hard, board.cards[card]?.column != column.id else { return nil }
        let count = board.count(in: column.id)
        guard count + 1 > wip.limit else { return nil }
        return "\(column.name) is full (\(count)/\(wip.limit))"
    }

    /// How many positions the ghost can take in column `index`: its visible cards without the carried one, plus one.
    func ghostSlots(in index: Int, carrying card: CardID) -> Int {
        visibleCards(index).filter { $0.id != card }.count
    }

    /// Drops the carried card where its ghost is: one intent move, relative to the card it lands after (or before).
    mutating func drop() -> [TUIEffect] {
        guard let carried = carry, columns.indices.contains(carried.column) else { return [] }
        carry = nil
        let others = visibleCards(carried.column).filter { $0.id != carried.card }
        let placement: Placement
        if others.isEmpty {
            placement = .bottom
        } else if carried.index == 0 {
            placement = Placement(before: others[0].id)
        } else {
            placement = Placement(after: others[min(carried.index, others.count) - 1].id)
        }
        column = carried.column
        row = carried.index
        selectMoved = carried.card
        selectMovedTo = columns[carried.column].id
        let op = Op.moveCard(card: carried.card, column: columns[carried.column].id, placement: placement)
        return submitShown([op]) + [.presence(.viewing, card: carried.card)]
    }
}
