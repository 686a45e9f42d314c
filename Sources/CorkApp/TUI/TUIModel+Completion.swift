import BoardCore

/// Tab completion under way: what a repeated Tab cycles through.
public struct TabCompletion: Hashable, Sendable {
    /// The line before the completed word (kept as typed).
    public var head: String
    /// The candidates, in the order Tab shows them.
    public var candidates: [String]
    /// The candidate shown now.
    public var index: Int
    /// The line as the last Tab left it; a different line means the user typed since, and completion starts over.
    public var line: String

    /// The candidates for the status line, the current one in brackets (at most eight, around the current one).
    var summary: String {
        let start = max(0, min(index - 3, candidates.count - 8))
        let shown = candidates.indices.dropFirst(start).prefix(8).map { $0 == index ? "[\(candidates[$0])]" : candidates[$0] }
        return (start > 0 ? "… " : "") + shown.joined(separator: " ") + (start + 8 < candidates.count ? " …" : "")
    }
}

extension TUIModel {
    /// Tab in the input line: completes the word before the end of the line from what fits there (commands, card
    /// numbers, column names, labels, user names); a repeated Tab cycles through the candidates.
    mutating func complete() {
        if var cycling = completion, cycling.line == input.text, cycling.candidates.count > 1 {
            cycling.index = (cycling.index + 1) % cycling.candidates.count
            input.set(cycling.head + cycling.candidates[cycling.index])
            cycling.line = input.text
            completion = cycling
            notice = cycling.summary
            return
        }
        completion = nil
        let (head, word, candidates) = completionSlot(input.text)
        let matches = candidates.filter { candidate in
            candidate.lowercased().hasPrefix(word.lowercased())
                || (word.first?.isNumber == true && candidate.hasPrefix("#\(word)"))
        }
        guard let first = matches.first else {
            notice = "no completion"
            return
        }
        if matches.count == 1 {
            input.set(head + first + " ")
            completedWithSpace = input.text
            return
        }
        input.set(head + first)
        let started = TabCompletion(head: head, candidates: matches, index: 0, line: input.text)
        completion = started
        notice = started.summary
    }

    /// Where the completed word starts, the word, and what may stand there, given the line so far.
    func completionSlot(_ text: String) -> (head: String, word: String, candidates: [String]) {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let word = words.last ?? ""
        let head = String(text.dropLast(word.count))
        if words.count == 1, word.hasPrefix("/") { return (head, word, TUIModel.commands.sorted()) }
        guard let board else { return (head, word, []) }
        let columns = board.columns.map(\.name)
        let labels = board.labels.map(\.name).sorted { $0.lowercased() < $1.lowercased() }
        let users = Set(board.members.keys.map(\.rawValue) + presence.values.map(\.user.rawValue)).sorted()
        // Free text (chat, titles, comments): `#12` card numbers and `@user` mentions.
        let free = word.hasPrefix("@") ? users.map { "@" + $0 } : word.hasPrefix("#") ? cardNumbers(archived: false) : []
        guard text.hasPrefix("/") else { return (head, word, free) }
        let argument = words.count - 1
        switch words[0] {
        case "/move":
            if argument == 1 { return (head, word, cardNumbers(archived: false)) }
            // The column is the rest of the line: its name may have spaces.
            let columnHead = words[0] + " " + words[1] + " "
            return (columnHead, String(text.dropFirst(columnHead.count)), columns)
        case "/edit", "/desc", "/due", "/comment", "/close", "/reopen", "/archive":
            return (head, word, argument == 1 ? cardNumbers(archived: false) : free)
        case "/block", "/unblock":
            return (head, word, argument <= 2 ? cardNumbers(archived: false) : [])
        case "/follow", "/unfollow":
            return (head, word, argument == 1 ? cardNumbers(archived: false) : [])
        case "/recur":
            return recurCompletion(words, head: head, word: word)
        case "/restore":
            return (head, word, argument == 1 ? cardNumbers(archived: true) : [])
        case "/label":
            if argument == 1, word.hasPrefix("#") { return (head, word, cardNumbers(archived: false)) }
            let sign = word.hasPrefix("+") || word.hasPrefix("-") ? String(word.prefix(1)) : ""
            return (head, word, labels.map { sign + $0 })
        case "/labels":
            if argument == 1 { return (head, word, ["add", "color", "rename", "remove"]) }
            if argument == 2, words[1] != "add" { return (head, word, labels) }
            if argument == 3, ["color", "colour"].contains(words[1]) { return (head, word, LabelOps.colorNames.keys.sorted()) }
            return (head, word, [])
        case "/assign":
            if argument == 1, word.hasPrefix("#") { return (head, word, cardNumbers(archived: false)) }
            return (head, word, users)
        case "/filter":
            return (head, word, filterTerms(columns: columns, labels: labels, users: users))
        case "/column":
            return (head, word, columnCompletion(argument: argument, words: words))
        case "/board":
            let ids = (boardList?.map(\.board.rawValue) ?? [boardID.rawValue]).filter { $0 != boardID.rawValue }
            return (head, word, argument == 1 ? ids + ["create", "remind"] : argument == 2 && words[1] == "remind" ? ["default", "24", "48", "72"] : [])
        case "/set":
            // The settings, then each one's values.
            if argument == 1 { return (head, word, ["joins", "notify"]) }
            guard argument == 2 else { return (head, word, []) }
            switch words[1] {
            case "joins": return (head, word, JoinsDisplay.allCases.map(\.rawValue))
            case "notify": return (head, word, InboxNotify.allCases.map(\.rawValue))
            default: return (head, word, [])
            }
        default:
            return (head, word, free)
        }
    }

    /// `#N` for the board's cards, in number order: the unarchived ones, or the archived ones.
    func cardNumbers(archived: Bool) -> [String] {
        guard let board else { return [] }
        return board.cards.values.filter { $0.archived == archived }.map(\.number).sorted().map { "#\($0)" }
    }

    /// Query terms for `/filter`: field names, then `label:`, `column:`, `assignee:`, `@` and `milestone:` with their
    /// values.
    func filterTerms(columns: [String], labels: [String], users: [String]) -> [String] {
        let quoted = columns.map { $0.contains(" ") ? "\"\($0)\"" : $0 }
        return ["label:", "assignee:", "due:", "is:", "column:", "milestone:", "ref:"]
            + labels.map { "label:" + $0 } + quoted.map { "column:" + $0 } + users.map { "assignee:" + $0 }
            + users.map { "@" + $0 } + (board?.milestones.map { "milestone:\($0.id)" } ?? []) + ["milestone:none"]
            + ["is:open", "is:closed", "is:archived", "is:overdue"]
            + ["due:overdue", "due:today", "due:week", "due:none"]
    }
}
