import BoardClient
import BoardCore
import TerminalUI

extension TUIModel {
    /// `b` or a bare `/board`: the board picker, listing the boards afresh from the server.
    mutating func openBoards() -> [TUIEffect] {
        overlay = .boards
        focus = .board
        overlayRow = boardList?.firstIndex { $0.board == boardID } ?? 0
        return [.listBoards]
    }

    /// A key in the board picker: Enter follows the selected board, `n` creates one.
    mutating func boardPickerKey(_ event: KeyEvent) -> [TUIEffect] {
        let rows = boardList ?? []
        switch event.key {
        case .escape, .character("q"):
            return closeOverlay()
        case .character("n"):
            return startInput(.newBoard, text: "")
        case .enter:
            guard rows.indices.contains(overlayRow) else { return [] }
            let id = rows[overlayRow].board
            guard id != boardID else { return closeOverlay() }
            switchBoard(to: id)
            return [.switchBoard(id)]
        default:
            _ = moveOverlayRow(event, count: rows.count)
            return []
        }
    }

    /// The new-board input line: `ID NAME`, or only a name (its slug is the id).
    mutating func createBoard(_ text: String) -> [TUIEffect] {
        let words = text.split(separator: " ").map(String.init)
        guard let first = words.first else { return [] }
        // `ops Ops rota`: an id, then the name. A first word with capitals or other characters than an id's
        // lower-case letters, digits, - and _ (`Ops rota`) is part of the name, whose slug becomes the id.
        let idLike = first.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" || $0 == "_" }
        let named = words.count > 1 && idLike ? BoardID(validating: first) : nil
        let name = named == nil ? text : words.dropFirst().joined(separator: " ")
        guard let id = named ?? BoardSlug.id(for: text) else {
            notice = "a board needs an id: ID NAME (letters, digits, - and _)"
            return []
        }
        notice = "creating board \(id)…"
        return [.createBoard(id, name: name)]
    }

    /// `/board` opens the picker, `/board ID` follows that board, `/board create ID NAME` creates one and follows it.
    mutating func boardCommand(_ words: [String]) throws -> [TUIEffect] {
        guard let first = words.first else { return openBoards() }
        if first == "create" || first == "new" {
            guard words.count >= 2 else { throw TUIUsage(message: "/board create ID [NAME]") }
            return createBoard(words.dropFirst().joined(separator: " "))
        }
        if first == "remind", words.count <= 2, let board {
            let now = board.remindHours.map { "\($0) h before a card's due day" } ?? "a day before a card's due day (the server's default)"
            guard words.count == 2 else {
                notice = "board \(board.id) reminds \(now); /board remind HOURS|default changes it (owners)"
                return []
            }
            // Refused here, with the line kept, rather than by the server after the line is gone.
            guard let user, board.members[user]?.role == .owner else {
                throw TUIUsage(message: "only the board's owners set when reminders go out (it reminds \(now))")
            }
            do {
                return [.submit(.setRemindHours(hours: try RemindHours.parse(words[1])))]
            } catch {
                throw TUIUsage(message: "/board remind HOURS|default: \(error.message)")
            }
        }
        guard words.count == 1, let id = BoardID(validating: first) else {
            throw TUIUsage(message: "/board [ID] | /board create ID NAME | /board remind HOURS|default")
        }
        guard id != boardID else { return [] }
        switchBoard(to: id)
        return [.switchBoard(id)]
    }
}
