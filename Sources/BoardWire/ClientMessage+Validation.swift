import BoardCore

extension ClientMessage {
    /// What is wrong with a decoded message's envelope ids, or nil when they are well-formed.
    ///
    /// Board, card, column and client ids must be 1–64 bytes of `[A-Za-z0-9_.-]`, and a new board's name must pass
    /// the board-name rule. Values inside an op are the reducer's to check (it rejects with `invalid`).
    public var validationProblem: String? {
        func check(_ name: String, _ raw: String?) -> String? {
            guard let raw, !Identifier<Never>.isWellFormed(raw) else { return nil }
            return "field `\(name)` must be 1-64 characters from [A-Za-z0-9_.-]"
        }
        switch self {
        case .hello(let m): return check("client_id", m.clientID?.rawValue)
        case .createBoard(let m):
            return check("board", m.board.rawValue) ?? Board.nameProblem(m.name).map { "field `name`: \($0)" }
        case .archiveBoard(let m): return check("board", m.board.rawValue)
        case .subscribe(let m): return check("board", m.board.rawValue)
        case .unsubscribe(let m): return check("board", m.board.rawValue)
        case .op(let m): return check("board", m.board.rawValue)
        case .fetch(let m): return check("board", m.board.rawValue)
        case .presence(let m):
            if let note = m.awayNote,
                note.count > ClientMessage.Presence.awayNoteMaxCharacters
                    || note.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                return "field `away_note`: one line of at most \(ClientMessage.Presence.awayNoteMaxCharacters) characters, without control characters"
            }
            return check("board", m.board.rawValue) ?? check("card", m.card?.rawValue)
                ?? check("column", m.column?.rawValue)
        case .history(let m): return check("board", m.board.rawValue) ?? check("card", m.card?.rawValue)
        case .addHook(let m): return check("board", m.board.rawValue)
        case .listHooks(let m): return check("board", m.board.rawValue)
        case .removeHook(let m), .testHook(let m): return check("board", m.board.rawValue) ?? check("hook", m.hook)
        case .inbox(let m):
            if let limit = m.limit, !(1...200).contains(limit) { return "field `limit` must be 1-200" }
            return nil
        case .readInbox(let m):
            if m.ids == nil && m.all != true { return "give `ids` or `all`: true" }
            if let ids = m.ids, ids.count > 1000 { return "field `ids` holds at most 1000 entries" }
            return nil
        case .notify(let m):
            if let email = m.email, !email.isEmpty, let problem = NotifySettings.addressProblem(email) { return "field `email`: \(problem)" }
            if let delay = m.delayMs, !NotifySettings.delayRange.contains(delay) {
                return "field `delay_ms` must be \(NotifySettings.delayRange.lowerBound)-\(NotifySettings.delayRange.upperBound)"
            }
            if (m.board == nil) != (m.boardLevel == nil) { return "give `board` and `board_level` together" }
            return check("board", m.board?.rawValue)
        case .listBoards, .ping, .pong, .bye: return nil
        }
    }
}
