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
}
