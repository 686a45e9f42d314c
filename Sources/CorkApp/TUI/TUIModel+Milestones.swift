import BoardCore
import TerminalUI

extension TUIModel {
    /// `M`: the milestones overlay, on the milestone of the selected card when it has one.
    mutating func openMilestones() -> [TUIEffect] {
        let current = selectedCard?.milestone
        overlay = .milestones
        focus = .board
        overlayRow = milestoneRows.firstIndex { $0.id == current } ?? 0
        return []
    }

    /// The milestones as the overlay lists them: the open ones, then the closed ones, each in creation order.
    var milestoneRows: [Milestone] {
        let all = board?.milestones ?? []
        return all.filter { !$0.closed } + all.filter(\.closed)
    }

    /// Whether `milestone` is open and its due date has passed.
    func isOverdue(_ milestone: Milestone) -> Bool {
        guard let due = milestone.due, !milestone.closed else { return false }
        return due.daysSinceEpoch < today.daysSinceEpoch
    }

    /// A key in the milestones overlay: Enter (or `a`) puts the selected or marked cards in the milestone, `-`
    /// takes them out of theirs, `f` filters the board by it, `n` creates one, `C` closes or reopens it.
    mutating func milestoneKey(_ event: KeyEvent) -> [TUIEffect] {
        let rows = milestoneRows
        let selected = rows.indices.contains(overlayRow) ? rows[overlayRow] : nil
        switch event.key {
        case .escape, .character("q"):
            return closeOverlay()
        case .character("n"):
            return startInput(.newMilestone, text: "")
        case .character("C"):
            guard let selected else { return [] }
            guard !isViewer else { return refuseViewer() }
            return [.submit(selected.closed ? .reopenMilestone(milestone: selected.id) : .closeMilestone(milestone: selected.id))]
        case .enter, .character("a"):
            guard let selected else { return [] }
            return assignMilestone(.set(selected.id), naming: selected.title)
        case .character("-"):
            return assignMilestone(.clear, naming: nil)
        case .character("f"):
            guard let selected, let query = try? Query.parse("milestone:\(selected.id)") else { return [] }
            filter = ("milestone:\(selected.id)", query)
            clampSelection()
            return closeOverlay()
        default:
            _ = moveOverlayRow(event, count: rows.count)
            return []
        }
    }

    /// Puts the target cards (marked, else selected) in a milestone, or takes them out; closes the overlay.
    mutating func assignMilestone(_ change: Clearable<MilestoneID>, naming title: String?) -> [TUIEffect] {
        guard !isViewer else { return refuseViewer() }
        let cards = targets.filter { card in
            switch change {
            case .set(let id): card.milestone != id
            case .clear: card.milestone != nil
            }
        }
        guard !targets.isEmpty else {
            notice = "select a card first (v marks several)"
            return []
        }
        marked = []
        marking = false
        overlay = nil
        overlayRow = 0
        let count = cards.count
        say(
            "\(count) card\(count == 1 ? "" : "s") " + (title.map { "into \($0)" } ?? "out of their milestone"),
            about: .cards(Set(cards.map(\.id))))
        return cards.map { .submit(.editCard(EditCard(card: $0.id, milestone: change))) }
    }

    /// The new-milestone input line: `TITLE`, or `TITLE YYYY-MM-DD` for a due date.
    mutating func createMilestone(_ text: String) -> [TUIEffect] {
        var words = text.split(separator: " ").map(String.init)
        let due = words.last.flatMap { Day($0) }
        if due != nil { words.removeLast() }
        let title = words.joined(separator: " ")
        guard !title.isEmpty else {
            notice = "a milestone needs a title: TITLE [YYYY-MM-DD]"
            return []
        }
        let taken = Set(board?.milestones.map(\.id.rawValue) ?? [])
        let id = MilestoneID(TUIModel.uniqueSlug(title, fallback: "milestone", taken: taken))
        overlayRow = milestoneRows.filter { !$0.closed }.count
        return [.submit(.createMilestone(milestone: id, title: title, description: nil, due: due))]
    }
}
