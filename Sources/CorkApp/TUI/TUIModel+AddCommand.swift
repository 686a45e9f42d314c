import BoardCore

extension TUIModel {
    /// `/add TITLE --option …` (``AddCommandLine``): the card `cork add` would add, with the labels the board lacks
    /// created first, in the selected column unless `--column` names another; it is selected once the board shows
    /// it. A `--ref` that a card already has selects that card instead, as `cork add --ref` prints it.
    mutating func addCommand(_ text: String, on board: Board) throws -> [TUIEffect] {
        let request = try AddCommandLine(text).request()
        if let ref = request.ref, let existing = board.card(ref: ref) {
            notice = "#\(existing.number) already has ref \(ref)"
            _ = select(card: existing.id)
            return presenceViewing()
        }
        let card = IDGenerator.cardID()
        var ops = try CardOps.add(request, on: board, cardID: card, today: today)
        if request.column == nil, columns.indices.contains(column), case .addCard(var add)? = ops.last {
            add.column = columns[column].id
            ops[ops.count - 1] = .addCard(add)
        }
        selectWhenShown = card
        return ops.map { .submit($0) }
    }

    /// The part of a `/command` line that has a limit, and that limit: the title of `/add` (without its options)
    /// and of `/edit`, the text of `/comment` (each without the card named first); nil for any other line.
    var commandLimit: (limit: InputLimit, text: String)? {
        guard purpose == .chat, let space = submittedText.firstIndex(of: " ") else { return nil }
        let rest = String(submittedText[space...].dropFirst())
        var words = rest.split(separator: " ").map(String.init)
        if let first = words.first, TUIModel.namesCard(first) { words.removeFirst() }
        switch submittedText[..<space] {
        case "/add": return (titleLimit, AddCommandLine(rest).title)
        case "/edit": return (titleLimit, words.joined(separator: " "))
        case "/comment": return (commentLimit, words.joined(separator: " "))
        default: return nil
        }
    }
}
