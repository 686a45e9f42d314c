import BoardCore
import TerminalUI

extension TUIModel {
    /// `/archive`: the archived cards, newest number first, through `search`.
    mutating func openArchive(search: String) -> [TUIEffect] {
        overlay = .archive
        focus = .board
        overlayRow = 0
        archiveSearch = search
        return []
    }

    /// The archived cards the archive view shows: those the search matches (the filter language, e.g.
    /// `label:bug "login"`, or words of the title), newest number first.
    var archivedRows: [Card] {
        guard let board else { return [] }
        let archived = board.cards.values.filter(\.archived)
        let search = archiveSearch.trimmingSpaces
        let matching: [Card]
        if search.isEmpty {
            matching = Array(archived)
        } else if let query = try? Query.parse("is:archived " + search) {
            let context = QueryContext(today: today, me: user)
            matching = archived.filter { query.matches($0, in: board, context: context) }
        } else {
            let lower = search.lowercased()
            matching = archived.filter { $0.title.lowercased().contains(lower) }
        }
        return matching.sorted { $0.number > $1.number }
    }

    /// A key in the archive view: Enter (or `r`) restores the selected card, `/` searches.
    mutating func archiveKey(_ event: KeyEvent) -> [TUIEffect] {
        let rows = archivedRows
        switch event.key {
        case .escape, .character("q"):
            return closeOverlay()
        case .character("/"):
            return startInput(.archiveSearch, text: archiveSearch)
        case .enter, .character("r"):
            guard rows.indices.contains(overlayRow) else { return [] }
            guard !isViewer else { return refuseViewer() }
            let card = rows[overlayRow]
            overlayRow = max(0, min(overlayRow, rows.count - 2))
            say("restored #\(card.number) to \(board?.column(card.column)?.name ?? card.column.rawValue)", about: .cards([card.id]))
            return [.submit(.restoreCard(card: card.id))]
        default:
            _ = moveOverlayRow(event, count: rows.count)
            return []
        }
    }

    /// `/close`, `/reopen`, `/archive`, `/restore` of a card (or the marked ones). A card already as asked changes
    /// nothing: it is said, rather than sent for a no-op the feed would not show.
    mutating func cardStateCommand(_ name: String, _ words: [String], in board: Board) throws -> [TUIEffect] {
        let cards = try words.isEmpty ? targets : [CardReference.resolve(words[0], in: board)]
        guard !cards.isEmpty else { throw TUIUsage(message: "\(name) [CARD]") }
        marked = []
        let (state, already, op): (String, (Card) -> Bool, (CardID) -> Op) =
            switch name {
            case "/close": ("closed", \.closed, { .closeCard(card: $0) })
            case "/reopen": ("open", { !$0.closed }, { .reopenCard(card: $0) })
            case "/archive": ("archived", \.archived, { .archiveCard(card: $0) })
            default: ("not archived", { !$0.archived }, { .restoreCard(card: $0) })
            }
        let unchanged = cards.filter(already)
        if !unchanged.isEmpty {
            let numbers = unchanged.map { "#\($0.number)" }.joined(separator: ", ")
            notice = "\(numbers) \(unchanged.count == 1 ? "is" : "are") \(state) already: no change"
        }
        return cards.filter { !already($0) }.map { .submit(op($0.id)) }
    }
}
