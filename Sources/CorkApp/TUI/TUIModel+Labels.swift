import BoardCore

extension TUIModel {
    static let labelsUsage = "/labels [add NAME [COLOR] | color LABEL COLOR | rename LABEL NAME | remove LABEL]"

    /// `/labels`: the board's labels in the feed; `add NAME [COLOR]`, `color LABEL COLOR`, `rename LABEL NAME`,
    /// `remove LABEL` change them (a name with spaces in double quotes; a colour is `#RRGGBB` or red, blue, …).
    mutating func labelsCommand(_ rest: String, in board: Board) throws -> [TUIEffect] {
        let words = TUIModel.quotedWords(rest)
        guard let action = words.first?.lowercased() else {
            post(FeedEntry("labels on \(board.id) (/labels color LABEL COLOR recolours one):", kind: .info))
            for line in LabelOps.list(board) { post(FeedEntry("  " + line, kind: .info)) }
            return []
        }
        guard !isViewer else { return refuseViewer() }
        switch (action, words.count) {
        case ("add", 2), ("add", 3):
            return [.submit(try LabelOps.add(name: words[1], color: words.count == 3 ? words[2] : nil, on: board))]
        case ("color", 3), ("colour", 3):
            return [.submit(try LabelOps.recolor(words[1], to: words[2], on: board))]
        case ("rename", 3...):
            return [.submit(try LabelOps.rename(words[1], to: words[2...].joined(separator: " "), on: board))]
        case ("remove", 2), ("delete", 2):
            return [.submit(try LabelOps.remove(words[1], on: board))]
        default:
            throw TUIUsage(message: TUIModel.labelsUsage)
        }
    }
}
