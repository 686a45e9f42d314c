import BoardCore

/// The input-line commands for what a card waits for, how it comes back and who watches it: `/block`, `/unblock`,
/// `/recur`, `/follow`, `/unfollow` (`/force` is with the refusals it answers).
extension TUIModel {
    /// How `/recur` is typed.
    static let recurUsage = "/recur [CARD] day|weekday|week mon,thu|month N|after N|off"

    /// What `/recur` takes first, for completion.
    static let recurWords = ["day", "weekday", "week", "month", "after", "off"]

    /// The days of the week as `/recur week` takes them, Monday first, for completion.
    static let weekDays = Recurrence.dayNames.dropFirst() + Recurrence.dayNames.prefix(1)

    /// `/block [CARD] OTHER` and `/unblock [CARD] OTHER`: the card (the selected one when only OTHER is given) and
    /// OTHER.
    func blockCommand(_ name: String, _ words: [String], in board: Board) throws -> [TUIEffect] {
        let card: Card
        switch words.count {
        case 1:
            guard let selected = selectedCard else { throw usage("select a card first, or name it (#12)") }
            card = selected
        case 2:
            card = try CardReference.resolve(words[0], in: board)
        default:
            throw usage("\(name) [CARD] OTHER")
        }
        let other = try CardReference.resolve(words[words.count - 1], in: board)
        if name == "/block" {
            guard other.id != card.id else { throw usage("#\(card.number) cannot wait for itself") }
            guard !other.archived else {
                throw usage("#\(other.number) is archived, so #\(card.number) would not wait for it: /restore it first")
            }
            return [.submit(.blockCard(card: card.id, by: other.id))]
        }
        guard card.blockedBy.contains(other.id) else { throw usage("#\(card.number) does not wait for #\(other.number)") }
        return [.submit(.unblockCard(card: card.id, by: other.id))]
    }

    /// `/follow [CARD]` and `/unfollow [CARD]`.
    func followCommand(_ name: String, _ words: [String], in board: Board) throws -> [TUIEffect] {
        let card: Card
        switch words.count {
        case 0:
            guard let selected = selectedCard else { throw usage("select a card first, or name it (#12)") }
            card = selected
        case 1:
            card = try CardReference.resolve(words[0], in: board)
        default:
            throw usage("\(name) [CARD]")
        }
        return [.submit(name == "/follow" ? .watchCard(card: card.id) : .unwatchCard(card: card.id))]
    }

    /// The rule `/recur` was given after its card: `day`, `weekday`, `week mon,thu` (or `week mon thu`),
    /// `month N`, `after N`, or `off` (nil). A leading `every` is allowed.
    func recurrence(_ text: String) throws -> Recurrence? {
        var words = text.lowercased().split(separator: " ").map(String.init)
        if words.first == "every" { words.removeFirst() }
        guard let first = words.first else { throw usage(TUIModel.recurUsage) }
        let rest = Array(words.dropFirst())
        let rule: Recurrence
        switch first {
        case "off" where rest.isEmpty:
            return nil
        case "day" where rest.isEmpty, "weekday" where rest.isEmpty:
            rule = Recurrence(every: Recurrence.Every(rawValue: first))
        case "week":
            let days = Recurrence.days(rest.joined(separator: ",").split(separator: ",").map(String.init))
            rule = Recurrence(every: .week, days: days)
            guard rule.problem == nil else {
                throw usage("/recur [CARD] week DAYS (DAYS of mon, tue, wed, thu, fri, sat, sun, as mon,thu)")
            }
        case "month":
            rule = Recurrence(every: .month, day: rest.count == 1 ? Int(rest[0]) : nil)
            guard rule.problem == nil else { throw usage("/recur [CARD] month N (N is the day of the month, 1–31)") }
        case "after":
            // `after 3` or `after 3 days`.
            let days = rest.count == 1 || (rest.count == 2 && ["day", "days"].contains(rest[1])) ? Int(rest[0]) : nil
            rule = Recurrence(afterDoneDays: days)
            guard rule.problem == nil else { throw usage("/recur [CARD] after N (N days after it is done, 1–365)") }
        default:
            throw usage(TUIModel.recurUsage)
        }
        return rule
    }

    /// Completion for `/recur`: card numbers (for a word that starts like one), then the schedule's words, then the
    /// days of the week after `week` (after the last comma of `mon,t`).
    func recurCompletion(_ words: [String], head: String, word: String) -> (head: String, word: String, candidates: [String]) {
        let argument = words.count - 1
        if argument == 1, word.hasPrefix("#") || word.first?.isNumber == true {
            return (head, word, cardNumbers(archived: false))
        }
        // The schedule starts after a named card.
        let first = argument >= 2 && TUIModel.namesCard(words[1]) ? 2 : 1
        if argument == first { return (head, word, TUIModel.recurWords) }
        if argument == first + 1, words[first].lowercased() == "week" {
            let done = word.lastIndex(of: ",").map { String(word[...$0]) } ?? ""
            return (head + done, String(word.dropFirst(done.count)), Array(TUIModel.weekDays))
        }
        return (head, word, [])
    }
}
