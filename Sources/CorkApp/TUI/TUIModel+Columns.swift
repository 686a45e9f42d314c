import BoardCore
import TerminalUI

extension TUIModel {
    /// What the status line says while a column header is selected.
    static let headerHint = "column: e rename · a add a column · H/L move · w WIP limit · x remove · n new card"

    /// `k` above the first card: the column's header is selected, and the column keys apply.
    mutating func selectHeader() -> [TUIEffect] {
        guard columns.indices.contains(column), !onHeader else { return [] }
        onHeader = true
        return presenceViewing()
    }

    /// A key on a selected column header; nil when it is not a column key (moving around works as on a card).
    mutating func headerKey(_ event: KeyEvent) -> [TUIEffect]? {
        guard columns.indices.contains(column) else { return nil }
        let selected = columns[column]
        switch (event.key, event.modifiers.contains(.shift)) {
        case (.character("e"), _), (.character("R"), _):
            return startInput(.renameColumn(selected.id), text: selected.name)
        case (.character("a"), _):
            return startInput(.newColumn(index: column + 1), text: "")
        case (.character("w"), _), (.character("W"), _):
            // Empty, with the limit now in the prompt: a prefilled `2` took a typed `1 hard` as `21 hard`.
            return startInput(.wipLimit(selected.id), text: "")
        case (.character("H"), _), (.left, true):
            return moveColumn(selected, to: column - 1)
        case (.character("L"), _), (.right, true):
            return moveColumn(selected, to: column + 1)
        case (.character("x"), _), (.delete, _):
            return removeColumn(selected)
        case (.enter, _), (.character(" "), _), (.character("m"), _), (.character("J"), _), (.character("K"), _),
            (.character("E"), _), (.character("C"), _):
            return []
        default:
            return nil
        }
    }

    /// A column added after the last one becomes the done column (Protocol.md: a card is done when closed or in the
    /// last column), so the cards in today's last column would count as not done at once: milestones drop, blocked
    /// cards wait again, reminders go out. The first Enter says so and keeps the line; the same name again adds it.
    mutating func newLastColumnWarning(_ name: String, index: Int?) -> String? {
        guard let board, let last = board.columns.last, (index ?? Int.max) >= board.columns.count else { return nil }
        let held = board.cards.values.filter { $0.column == last.id && !$0.archived }.count
        guard held > 0, confirmedLastColumn != name else {
            confirmedLastColumn = nil
            return nil
        }
        confirmedLastColumn = name
        return "\(name) would come after \(last.name) and be the done column: its \(held) card\(held == 1 ? "" : "s") would"
            + " count as not done (milestones, blocked cards, reminders). Enter again adds it last; a on a column's"
            + " header adds one after that column"
    }

    /// `N`, or `N hard`, as the WIP input line shows a limit.
    static func wipText(_ limit: WIPLimit) -> String { "\(limit.limit)\(limit.hard ? " hard" : "")" }

    /// Moves `column` to position `index` (clamped); the selection follows it.
    mutating func moveColumn(_ moving: Column, to index: Int) -> [TUIEffect] {
        let target = max(0, min(columns.count - 1, index))
        guard !isViewer else { return refuseViewer() }
        guard target != columns.firstIndex(where: { $0.id == moving.id }) else { return [] }
        column = target
        return submitShown([.moveColumn(column: moving.id, index: target)])
    }

    /// Removes an empty column; a column holding cards (archived ones count) is refused here, with the count.
    mutating func removeColumn(_ removing: Column) -> [TUIEffect] {
        guard !isViewer else { return refuseViewer() }
        let held = board?.cards.values.filter { $0.column == removing.id }.count ?? 0
        guard held == 0 else {
            // A refusal as any other: on the status line and in the feed.
            refuse("\(removing.name) holds \(held) card\(held == 1 ? "" : "s") (archived ones count): move them first")
            return []
        }
        return [.submit(.removeColumn(column: removing.id))]
    }

    mutating func refuseViewer() -> [TUIEffect] {
        notice = TUIModel.viewerRefusal
        return []
    }

    /// A new column's id: its name as a slug (`In review` → `in-review`), made unique on the board.
    func newColumnID(for name: String) -> ColumnID {
        ColumnID(TUIModel.uniqueSlug(name, fallback: "column", taken: Set(columns.map(\.id.rawValue))))
    }

    /// `name` as an id slug (`In review` → `in-review`, `fallback` when it has no letters or digits), with `-2`,
    /// `-3`… added while it is in `taken`.
    static func uniqueSlug(_ name: String, fallback: String, taken: Set<String>) -> String {
        let base = BoardSlug.id(for: name)?.rawValue ?? fallback
        var candidate = base
        var n = 2
        while taken.contains(candidate) {
            candidate = "\(base.prefix(Limits.idMaxLength - 4))-\(n)"
            n += 1
        }
        return candidate
    }

    /// The op for a WIP limit typed as `N`, `N hard`, `N soft` or `none` (empty clears it too).
    func wipOp(_ text: String, column: ColumnID) throws(TUIUsage) -> Op {
        let words = text.split(separator: " ").map { $0.lowercased() }
        if words.isEmpty || words == ["none"] || words == ["-"] { return .setWIPLimit(column: column, limit: nil) }
        guard words.count <= 2, let limit = Int(words[0]), (1...Limits.wipLimitMax).contains(limit),
            words.count == 1 || words[1] == "hard" || words[1] == "soft"
        else { throw TUIUsage(message: "a WIP limit is N (1–\(Limits.wipLimitMax)), N hard, N soft or none") }
        return .setWIPLimit(column: column, limit: WIPLimit(limit: limit, hard: words.count == 2 && words[1] == "hard"))
    }

    /// What the column input lines (rename, add, WIP limit) submit.
    mutating func submitColumnInput(_ text: String, purpose: InputPurpose) -> [TUIEffect] {
        switch purpose {
        case .renameColumn(let id):
            guard !text.isEmpty, board?.column(id)?.name != text else { return [] }
            return [.submit(.renameColumn(column: id, name: text))]
        case .newColumn(let index):
            guard !text.isEmpty else { return [] }
            if let warning = newLastColumnWarning(text, index: index) {
                let effects = startInput(.newColumn(index: index), text: text)
                notice = warning
                return effects
            }
            column = min(index, columns.count)
            return [.submit(.addColumn(column: newColumnID(for: text), name: text, index: index))]
        case .wipLimit(let id):
            // Nothing typed changes nothing (`none` clears the limit).
            guard !text.isEmpty else { return [] }
            do {
                return [.submit(try wipOp(text, column: id))]
            } catch {
                // The value stays in the line to mend.
                let effects = startInput(.wipLimit(id), text: text)
                notice = error.message
                return effects
            }
        default:
            return []
        }
    }

    /// How `/column` is typed, each action with its arguments.
    static let columnUsage =
        "/column add NAME | rename COLUMN NAME | move COLUMN N|left|right | remove COLUMN | wip COLUMN N [hard|soft]|none"
        + " | progress COLUMN on|off"

    /// `/column add NAME`, `/column rename COLUMN NAME`, `/column move COLUMN N|left|right`,
    /// `/column remove COLUMN`, `/column wip COLUMN N [hard|soft] | none`, `/column progress COLUMN on|off`. A column
    /// name with spaces is quoted.
    mutating func columnCommand(_ rest: String, in board: Board) throws -> [TUIEffect] {
        let words = TUIModel.quotedWords(rest)
        let usage = TUIModel.columnUsage
        guard let action = words.first else { throw TUIUsage(message: usage) }
        if action == "add" {
            let name = words.dropFirst().joined(separator: " ")
            guard !name.isEmpty else { throw TUIUsage(message: "/column add NAME") }
            if let warning = newLastColumnWarning(name, index: nil) {
                let effects = startInput(.chat, text: "/column add " + name)
                notice = warning
                return effects
            }
            return [.submit(.addColumn(column: newColumnID(for: name), name: name, index: nil))]
        }
        guard words.count >= 2 else { throw TUIUsage(message: usage) }
        let target = try ColumnReference.resolve(words[1], in: board)
        let tail = words.dropFirst(2).joined(separator: " ")
        switch action {
        case "rename":
            guard !tail.isEmpty else { throw TUIUsage(message: "/column rename COLUMN NEW NAME") }
            return [.submit(.renameColumn(column: target.id, name: tail))]
        case "move":
            let from = board.columnIndex(target.id) ?? 0
            let index: Int
            switch tail.lowercased() {
            case "left": index = from - 1
            case "right": index = from + 1
            default:
                guard let position = Int(tail), position >= 1 else {
                    throw TUIUsage(message: "/column move COLUMN N|left|right (N counts from 1, leftmost)")
                }
                index = position - 1
            }
            return moveColumn(target, to: index)
        case "remove":
            return removeColumn(target)
        case "wip":
            return [.submit(try wipOp(tail, column: target.id))]
        case "progress":
            // In progress, a column keeps out the cards that wait for others (unless moved with /force REASON).
            switch tail.lowercased() {
            case "on": return [.submit(.setInProgress(column: target.id, on: true))]
            case "off": return [.submit(.setInProgress(column: target.id, on: false))]
            default: throw TUIUsage(message: "/column progress COLUMN on|off")
            }
        default:
            throw TUIUsage(message: usage)
        }
    }

    /// The words of `text`, where `"two words"` is one word (without its quotes).
    static func quotedWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for c in text {
            if c == "\"" {
                quoted.toggle()
                started = true
            } else if c == " " && !quoted {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(c)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    /// Completion for `/column`: the action, then column names (quoted when they have spaces), then what follows.
    func columnCompletion(argument: Int, words: [String]) -> [String] {
        let names = columns.map { $0.name.contains(" ") ? "\"\($0.name)\"" : $0.name }
        switch argument {
        case 1: return ["add", "rename", "move", "remove", "wip", "progress"]
        case 2: return words[1] == "add" ? [] : names
        case 3:
            switch words[1] {
            case "move": return ["left", "right"] + columns.indices.map { "\($0 + 1)" }
            case "wip": return ["none"]
            case "progress": return ["on", "off"]
            default: return []
            }
        case 4: return words[1] == "wip" ? ["hard", "soft"] : []
        default: return []
        }
    }
}
