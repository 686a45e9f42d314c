import BoardClient
import BoardCore
import Foundation
import TerminalUI

extension TUIModel {
    mutating func inputKey(_ event: KeyEvent) -> [TUIEffect] {
        switch event.key {
        case .character(let c) where event.modifiers.contains(.ctrl):
            switch c {
            case "a": input.home()
            case "e": input.end()
            // Refining a filter (opened with `/`, or a refused query kept to mend): the query goes, `/filter `
            // stays (Enter on it clears the filter), so the next words are not posted as chat.
            case "u": input.set(input.text.hasPrefix("/filter ") ? "/filter " : "")
            case "w": input.deleteWord()
            default: break
            }
        case .character(let c):
            // Punctuation right after a completion goes where the word ends: `@alice,` not `@alice ,`.
            if completedWithSpace == input.text, ",.;:!?)".contains(c), input.text.hasSuffix(" ") { input.backspace() }
            input.insert(String(c))
        case .backspace: input.backspace()
        case .delete: input.delete()
        case .left: input.move(-1)
        case .right: input.move(1)
        case .home: input.home()
        case .end: input.end()
        case .tab:
            // An empty chat line has nothing to complete: Tab moves on, as the hint line says.
            if input.text.isEmpty && purpose == .chat { return cycleFocus() }
            // Board ids come from the server: ask for them once, and complete when they arrive.
            if boardList == nil, purpose == .chat, input.text.hasPrefix("/board "),
                input.text.split(separator: " ", omittingEmptySubsequences: false).count == 2
            {
                completeWhenBoardsArrive = true
                notice = "listing the boards…"
                return [.listBoards]
            }
            complete()
        case .escape:
            // A half-typed chat line is kept, as a chat client keeps a draft: `:`, `i` or Tab brings it back. What a
            // key put there and nothing was typed to (`/`'s `/filter `) is not a draft.
            if purpose == .chat, !input.text.isEmpty, input.text != inputPrefill {
                draft = input.text
                notice = "draft kept: press : to go back to it"
            }
            input = LineEditor()
            let wasEditing = purpose != .chat
            purpose = .chat
            filterFromBoard = false
            focus = .board
            return wasEditing ? presenceViewing() : []
        case .enter:
            if let overLimit {
                notice = overLimit
                return []
            }
            let text = input.text.trimmingCharacters(in: .whitespaces)
            if case .editTitle(let id) = purpose, let card = board?.cards[id], let base = titleEditBase,
                card.title != base, card.title != text
            {
                // Renamed by someone else while this edit was open: said once; Enter again replaces it.
                titleEditBase = card.title
                notice = "#\(card.number) was renamed to \"\(card.title)\" while you edited it: Enter again replaces it with yours, Esc keeps it"
                return []
            }
            input = LineEditor()
            let purpose = self.purpose
            self.purpose = .chat
            if purpose != .chat { focus = .board }
            let effects = submitInput(text, purpose: purpose)
            filterFromBoard = false
            return effects
        default:
            break
        }
        return []
    }

    /// The card the input line is typing about (its title, a comment, a checklist item), if any.
    var cardBeingTyped: CardID? {
        switch purpose {
        case .editTitle(let card), .comment(let card), .checklistItem(let card): card
        default: nil
        }
    }

    /// A filter query that is only the name of a command without arguments (`members`, `/who`), as typed after `/`
    /// on the board by someone who meant the command: the command (`/members`), or nil.
    public static func commandTypedAsFilter(_ query: String) -> String? {
        let word = query.hasPrefix("/") ? String(query.dropFirst()) : query
        guard !word.isEmpty, !word.contains(" ") else { return nil }
        let name = "/" + word.lowercased()
        let bare: Set<String> = ["/milestones", "/members", "/inbox", "/who", "/help"]
        return bare.contains(name) ? name : nil
    }

    /// Whether `query` parses and some unarchived card on `board` matches it.
    func matchesACard(_ query: String, on board: Board) -> Bool {
        guard let parsed = try? Query.parse(query) else { return false }
        let context = QueryContext(today: today, me: user)
        return board.cards.values.contains { !$0.archived && parsed.matches($0, in: board, context: context) }
    }

    /// An away note as shown here: one line, cut to what the server allows.
    static func shown(awayNote: String) -> String {
        FeedText.truncate(FeedText.oneLine(awayNote), max: awayNoteMaxCharacters)
    }

    mutating func submitInput(_ text: String, purpose: InputPurpose) -> [TUIEffect] {
        switch purpose {
        case .chat:
            guard !text.isEmpty else { return [] }
            if text.hasPrefix("/") { return command(text) }
            if case .connected = connection {} else {
                // Offline, the line waits in the queue: shown at once, marked, until it is sent.
                var entry = FeedEntry("<\(user?.rawValue ?? "you")> \(text)  · not sent yet", kind: .chat)
                entry.queuedChat = text
                post(entry)
            }
            return [.submit(.chat(text: text))]
        case .newCard(let column):
            guard !text.isEmpty else { return [] }
            let card = IDGenerator.cardID()
            selectWhenShown = card
            return [.submit(.addCard(AddCard(card: card, column: column, title: text)))]
        case .editTitle(let card):
            guard !text.isEmpty, let shown = board?.cards[card]?.title, shown != text else { return presenceViewing() }
            // Based on the title shown: if the server's is another one by the time it arrives (renamed meanwhile,
            // or while this edit waited offline), it refuses it as a conflict instead of replacing theirs unseen.
            return [.submit(.editCard(EditCard(card: card, title: text, baseTitle: shown))), .presence(.viewing, card: card)]
        case .comment(let card):
            guard !text.isEmpty else { return [] }
            return [.submit(.addComment(card: card, comment: IDGenerator.commentID(), text: text))]
        case .renameColumn, .newColumn, .wipLimit:
            return submitColumnInput(text, purpose: purpose)
        case .checklistItem(let card):
            return addChecklistItem(text, to: card)
        case .newMilestone:
            return createMilestone(text)
        case .newBoard:
            return createBoard(text)
        case .archiveSearch:
            archiveSearch = text
            overlayRow = 0
            return []
        }
    }

    /// The slash commands, for tab completion (``SlashCommand/all`` documents them).
    public static let commands = SlashCommand.all.map(\.name).reduce(into: [String]()) { names, name in
        // `/set` has a line per setting in the help: one command.
        if !names.contains(name) { names.append(name) }
    }

    /// Runs a `/command` typed in the input line.
    mutating func command(_ line: String) -> [TUIEffect] {
        var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let name = words.removeFirst()
        let rest = words.joined(separator: " ")
        guard let board else {
            // Kept to run once it is (typed offline after `/board`, say): the line is not typed again.
            refuse(Self.notLoaded, keeping: line)
            return []
        }
        do {
            switch name {
            case "/add":
                // The line as typed: a title after `--` keeps its spaces.
                return try addCommand(String(line.dropFirst(name.count)), on: board)
            case "/move":
                guard words.count >= 2 else { throw usage("/move CARD COLUMN") }
                let card = try CardReference.resolve(words[0], in: board)
                let column = try ColumnReference.resolve(words[1...].joined(separator: " "), in: board)
                return [.submit(.moveCard(card: card.id, column: column.id, placement: .bottom))]
            case "/edit":
                let (card, typed) = try cardAndText(words, in: board)
                let title = AddCommandLine.unquoted(typed)
                guard !title.isEmpty else { throw usage("/edit [CARD] TITLE") }
                // Based on the title shown, as `e` is: the server refuses it as a conflict if the card was renamed
                // meanwhile (offline, or in a race), and the text comes back to the input line.
                return [.submit(.editCard(EditCard(card: card.id, title: title, baseTitle: card.title)))]
            case "/desc":
                let (card, _) = try cardAndText(words, in: board)
                return editDescription(card.id)
            case "/due":
                let (card, text) = try cardAndText(words, in: board)
                if text == "none" || text == "-" {
                    return [.submit(.editCard(EditCard(card: card.id, due: .clear)))]
                }
                let day: Day
                do { day = try CardOps.day(text, today: today) } catch { throw usage("/due: \(error.message), or none") }
                return [.submit(.editCard(EditCard(card: card.id, due: .set(day))))]
            case "/label":
                let (card, text) = try cardAndText(words, in: board)
                let cards = marked.isEmpty ? [card] : targets
                return try labelOps(text.split(separator: " ").map(String.init), cards: cards, board: board)
            case "/labels":
                return try labelsCommand(rest, in: board)
            case "/assign":
                let (card, text) = try cardAndText(words, in: board)
                let member = try MemberReference.resolve(text, in: board)
                return targetsOr(card).map { .submit(.assign(card: $0.id, user: member.id)) }
            case "/block", "/unblock":
                return try blockCommand(name, words, in: board)
            case "/force":
                return try forceCommand(rest, in: board)
            case "/recur":
                let (card, text) = try cardAndText(words, in: board)
                return [.submit(.setRecurrence(card: card.id, recurrence: try recurrence(text)))]
            case "/follow", "/unfollow":
                return try followCommand(name, words, in: board)
            case "/comment":
                let (card, text) = try cardAndText(words, in: board)
                guard !text.isEmpty else { throw usage("/comment [CARD] TEXT") }
                return [.submit(.addComment(card: card.id, comment: IDGenerator.commentID(), text: text))]
            case "/archive" where marked.isEmpty && !(words.first.map(TUIModel.namesCard) ?? false):
                return openArchive(search: rest)
            case "/column":
                return try columnCommand(rest, in: board)
            case "/milestones":
                return openMilestones()
            case "/members":
                return openMembers()
            case "/inbox":
                return openInbox()
            case "/close", "/reopen", "/archive", "/restore":
                return try cardStateCommand(name, words, in: board)
            case "/undo", "/redo":
                let direction: UndoStack.Direction = name == "/undo" ? .undo : .redo
                if rest == "skip" { return skipUndo(direction) }
                guard rest.isEmpty else { throw usage("\(name) [skip]") }
                return undoKey(direction)
            case "/filter":
                if filterFromBoard, let command = Self.commandTypedAsFilter(rest), !matchesACard(rest, on: board) {
                    // `/` from the board, then a command's name (`members`): that command, not an empty board.
                    filterFromBoard = false
                    return self.command(command)
                }
                if rest.isEmpty {
                    filter = nil
                    notice = "filter cleared"
                } else {
                    do {
                        filter = (rest, try Query.parse(rest))
                    } catch {
                        throw usage("filter: \(error)")
                    }
                }
                clampSelection()
                // Opened from the board with `/`: back to it, where `/` opens the query again to refine it. Typed
                // in the input line: stay there.
                focus = filterFromBoard ? .board : .input
                return []
            case "/who":
                let people = presence.values.map { entry in
                    let doing = entry.card.flatMap { board.cards[$0] }.map { " \(entry.state.rawValue) #\($0.number)" } ?? ""
                    let away = entry.away == true ? " (away\(entry.awayNote.map { ": " + Self.shown(awayNote: $0) } ?? ""))" : ""
                    return "\(entry.user)\(doing)\(away)"
                }.sorted()
                post(FeedEntry("here: " + (people.isEmpty ? "nobody" : people.joined(separator: ", ")), kind: .info))
                return []
            case "/away":
                guard rest.count <= awayNoteMaxCharacters else {
                    throw usage("an away message is at most \(awayNoteMaxCharacters) characters")
                }
                away = rest.isEmpty ? nil : rest
                post(FeedEntry(rest.isEmpty ? "you are back" : "you are away: \(rest)", kind: .info))
                return [.presence(.viewing, card: selectedCard?.id, away: !rest.isEmpty)]
            case "/board":
                return try boardCommand(words)
            case "/lastlog":
                // Its own earlier answers are not feed lines to find again.
                let matches = feed.filter {
                    !$0.isLastlog && (rest.isEmpty || $0.text.localizedCaseInsensitiveContains(rest))
                }.suffix(20)
                var heading = FeedEntry("lastlog \(rest): \(matches.count) line\(matches.count == 1 ? "" : "s")", kind: .info)
                heading.isLastlog = true
                post(heading)
                for entry in matches {
                    var line = FeedEntry("  " + entry.text, kind: .info)
                    line.isLastlog = true
                    post(line)
                }
                return []
            case "/keep", "/theirs", "/merge":
                guard let conflict else {
                    say("no description conflict to resolve", about: .conflict)
                    return []
                }
                switch name {
                case "/keep":
                    self.conflict = nil
                    return [.submit(.editCard(EditCard(card: conflict.card, description: conflict.mine, baseSeq: conflict.seq)))]
                case "/theirs":
                    self.conflict = nil
                    say("kept the server's description", about: .conflict)
                    return []
                default:
                    return [
                        .presence(.editing, card: conflict.card),
                        .edit(conflict.draft ?? conflict.marked, .mergeDescription(conflict.card, baseSeq: conflict.seq)),
                    ]
                }
            case "/set":
                return try setCommand(words)
            case "/help":
                overlay = .help
                focus = .board
                return []
            case "/quit":
                return quitKey()
            default:
                throw usage("unknown command \(name); /help lists them")
            }
        } catch let error as ResolutionError {
            refuse(error.message, keeping: line)
        } catch let error as TUIUsage {
            refuse(error.message, keeping: line)
        } catch {
            refuse("\(error)", keeping: line)
        }
        return []
    }

    /// The refusal of a command typed before the board has loaded (it stays in the line).
    static let notLoaded = "the board is not loaded yet: the line is kept; Enter runs it once the board is shown"

    /// A command refused before anything was sent stays in the input line, to be mended rather than typed again
    /// (a typo in a long `/add` or `/move` would otherwise lose the whole line).
    mutating func refuse(_ reason: String, keeping line: String) {
        if input.text.isEmpty {
            input = LineEditor(line)
            focus = .input
        }
        refuse(reason)
    }

    /// A command the input line could not run: the reason on the status line, and whole in the feed, where a narrow
    /// terminal's status line would cut it (the usage that follows it most of all) and `/lastlog` finds it again.
    mutating func refuse(_ reason: String) {
        notice = reason
        post(FeedEntry(reason, kind: .error))
    }

    /// `/set [SETTING [VALUE]]`: shows the settings, or one, or changes one. For this run of cork only.
    mutating func setCommand(_ words: [String]) throws -> [TUIEffect] {
        let joinsUsage = "/set joins on|fold|off"
        let notifyUsage = "/set notify on|bell|off"
        guard words.count <= 2 else { throw usage(words.first == "notify" ? notifyUsage : joinsUsage) }
        switch words.first {
        case nil:
            postNotifySetting()
            postJoinsSetting()
        case "joins":
            if words.count == 2 {
                guard let display = JoinsDisplay(rawValue: words[1]) else { throw usage(joinsUsage) }
                joins = display
            }
            postJoinsSetting()
        case "notify":
            if words.count == 2 {
                guard let setting = InboxNotify(rawValue: words[1]) else { throw usage(notifyUsage) }
                notify = setting
            }
            postNotifySetting()
        default:
            throw usage("\(joinsUsage), or \(notifyUsage)")
        }
        return []
    }

    mutating func postJoinsSetting() {
        post(FeedEntry("joins and leaves: \(joins.rawValue)", kind: .info))
    }

    mutating func postNotifySetting() {
        let how =
            switch notify {
            case .on: "on: a new inbox entry brings \(terminalNotification.description)"
            case .bell: "bell: a new inbox entry rings the bell"
            case .off: "off: a new inbox entry shows in the feed and the status line only"
            }
        post(FeedEntry("notify \(how)", kind: .info))
    }

    /// The card named by the first word, or the selected card (then all the words are the text).
    func cardAndText(_ words: [String], in board: Board) throws -> (Card, String) {
        if let first = words.first, TUIModel.namesCard(first),
            let card = try? CardReference.resolve(first, in: board)
        {
            return (card, words.dropFirst().joined(separator: " "))
        }
        guard let card = selectedCard else { throw usage("select a card first, or name it (#12)") }
        return (card, words.joined(separator: " "))
    }

    /// Whether a typed word names a card (`#12`, `12`, `ref:GH-12`) rather than being text.
    static func namesCard(_ word: String) -> Bool { word.hasPrefix("#") || word.hasPrefix("ref:") || Int(word) != nil }

    func targetsOr(_ card: Card) -> [Card] { marked.isEmpty ? [card] : targets }

    /// `+L` / `-L` / `L` for each card; labels that do not exist yet are created with a palette colour.
    mutating func labelOps(_ changes: [String], cards: [Card], board: Board) throws -> [TUIEffect] {
        guard !changes.isEmpty else { throw usage("/label [CARD] +LABEL -LABEL") }
        var effects: [TUIEffect] = []
        for change in changes {
            let removing = change.hasPrefix("-")
            let name = change.hasPrefix("+") || removing ? String(change.dropFirst()) : change
            if removing {
                let label = try LabelReference.resolve(name, in: board)
                effects += cards.map { .submit(.removeLabel(card: $0.id, label: label.id)) }
            } else {
                let label: LabelID
                if let existing = try? LabelReference.resolve(name, in: board) {
                    label = existing.id
                } else {
                    label = LabelPalette.newLabelID(forName: name, on: board)
                    effects.append(.submit(.createLabel(label: label, name: name, color: LabelPalette.color(forName: name))))
                }
                effects += cards.map { .submit(.addLabel(card: $0.id, label: label)) }
            }
        }
        marked = []
        return effects
    }

    func usage(_ message: String) -> TUIUsage { TUIUsage(message: message) }
}

/// A command typed wrong, with what to type instead.
struct TUIUsage: Error {
    var message: String
}
