import BoardClient
import BoardCore

/// The most the input line may hold for its purpose (the server's limits from `welcome`).
public struct InputLimit: Hashable, Sendable {
    /// What is typed, for messages: `title`, `comment`, `chat message`.
    public var what: String
    /// The most allowed.
    public var max: Int
    /// Whether `max` counts UTF-8 bytes (else characters).
    public var inBytes: Bool

    /// How much of the limit `text` uses.
    public func used(_ text: String) -> Int { inBytes ? text.utf8.count : text.count }
}

extension TUIModel {
    /// The limit on what the input line holds now: for a `/command`, on the title or text it sends (`/add`,
    /// `/edit`, `/comment`), else nil (checked when it runs).
    public var inputLimit: InputLimit? {
        switch purpose {
        case .newCard, .editTitle: titleLimit
        case .comment: commentLimit
        case .renameColumn, .newColumn: InputLimit(what: "column name", max: limits.columnNameMax, inBytes: false)
        case .checklistItem: InputLimit(what: "checklist item", max: limits.checklistTextMax, inBytes: false)
        case .newBoard, .wipLimit, .newMilestone, .archiveSearch: nil
        case .chat:
            input.text.hasPrefix("/")
                ? commandLimit?.limit : InputLimit(what: "chat message", max: limits.chatMaxBytes, inBytes: true)
        }
    }

    /// The limit on a card's title.
    var titleLimit: InputLimit { InputLimit(what: "title", max: limits.titleMax, inBytes: false) }
    /// The limit on a comment.
    var commentLimit: InputLimit { InputLimit(what: "comment", max: limits.commentMaxBytes, inBytes: true) }

    /// The input line as it will be sent (trimmed).
    var submittedText: String { input.text.trimmingCharacters(in: .whitespaces) }

    /// What ``inputLimit`` counts: the line as it will be sent, or the part of a `/command` that has the limit.
    var limitedText: String { commandLimit?.text ?? submittedText }

    /// The counter at the end of the input line: how much room is left once little is (a tenth of the limit, at
    /// least 10), how far over once past it; nil otherwise.
    public var inputCounter: (text: String, over: Bool)? {
        guard let limit = inputLimit else { return nil }
        let room = limit.max - limit.used(limitedText)
        if room < 0 { return ("\(-room) over", true) }
        if room <= Swift.max(10, limit.max / 10) { return ("\(room) left", false) }
        return nil
    }

    /// Why the input line cannot be sent as it is (over its limit), or nil.
    var overLimit: String? {
        guard let limit = inputLimit else { return nil }
        let used = limit.used(limitedText)
        guard used > limit.max else { return nil }
        let unit = limit.inBytes ? "bytes" : "characters"
        return "the \(limit.what) is \(used) \(unit), at most \(limit.max): \(used - limit.max) too many"
    }

    /// A refused op whose text the user typed: it comes back to the input line (with its purpose) when the line is
    /// empty, so nothing typed is lost; when the user is typing something else, the feed keeps it instead. Returns
    /// whether it came back to the input line.
    mutating func restoreRefusedText(_ request: OpRequest, reason: String) -> Bool {
        let restored: (InputPurpose, String)
        switch request {
        case .op(.addCard(let add)):
            guard let column = add.column ?? columns.first?.id else { return false }
            restored = (.newCard(column), add.title)
        case .op(.editCard(let edit)):
            guard let title = edit.title else { return false }
            restored = (.editTitle(edit.card), title)
        case .op(.addComment(let card, _, let text)):
            restored = (.comment(card), text)
        case .op(.chat(let text)):
            restored = (.chat, text)
        default:
            return false
        }
        guard input.text.isEmpty else {
            post(FeedEntry("your refused text, to type again: \(restored.1)", kind: .error))
            return false
        }
        purpose = restored.0
        if case .editTitle(let card) = restored.0 { titleEditBase = board?.cards[card]?.title }
        input = LineEditor(restored.1)
        focus = .input
        notice = "refused: \(reason); your text is back in the input line"
        return true
    }
}
