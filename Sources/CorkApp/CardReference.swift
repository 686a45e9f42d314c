import BoardCore

/// What a person typed to name a card: `#12`, `12`, `ref:EXT-ID`, `id:c3`, or a bare card id.
///
/// A bare word may be a number, a card id or an external reference; it resolves when exactly one card matches.
/// `#12`, `ref:` and `id:` are explicit and match only that way.
public enum CardReference: Hashable, Sendable, CustomStringConvertible {
    /// `#12`: the card's per-board number.
    case number(Int)
    /// `ref:EXT-ID`: the card's external reference.
    case ref(String)
    /// `id:c3`: the card's id.
    case id(CardID)
    /// A bare word: a number, a card id or a ref, whichever matches.
    case bare(String)

    /// Parses what a person typed (surrounding spaces are ignored).
    public init(parsing text: String) throws(ResolutionError) {
        let text = text.trimmingSpaces
        let hint = "write #12, 12, ref:EXT-1 or a card id"
        if text.isEmpty { throw ResolutionError(.invalid, "no card given; \(hint)") }
        if text.hasPrefix("#") {
            let digits = text.dropFirst()
            guard let n = Int(digits), n > 0, digits.allSatisfy(\.isASCIIDigit) else {
                throw ResolutionError(.invalid, "\"\(text)\" is not a card number; \(hint)")
            }
            self = .number(n)
        } else if text.hasPrefix("ref:") {
            let ref = String(text.dropFirst(4))
            guard !ref.isEmpty else { throw ResolutionError(.invalid, "ref: needs a reference, e.g. ref:JIRA-12") }
            self = .ref(ref)
        } else if text.hasPrefix("id:") {
            guard let id = CardID(validating: String(text.dropFirst(3))) else {
                throw ResolutionError(
                    .invalid, "\"\(text)\" is not a card id (1–\(Limits.idMaxLength) characters of A–Z a–z 0–9 _ . -)")
            }
            self = .id(id)
        } else {
            self = .bare(text)
        }
    }

    /// The reference as a person would type it.
    public var description: String {
        switch self {
        case .number(let n): "#\(n)"
        case .ref(let ref): "ref:\(ref)"
        case .id(let id): "id:\(id)"
        case .bare(let text): text
        }
    }

    /// The one card this reference names on `board` (archived cards included).
    public func resolve(in board: Board) throws(ResolutionError) -> Card {
        switch self {
        case .number(let n):
            if let card = board.card(number: n) { return card }
            throw ResolutionError(.notFound, "no card #\(n) on board \(board.id)")
        case .ref(let ref):
            if let card = board.card(ref: ref) { return card }
            throw ResolutionError(.notFound, "no card with ref \(ref) on board \(board.id)")
        case .id(let id):
            return try Self.card(id: id, in: board)
        case .bare(let text):
            return try resolveBare(text, in: board)
        }
    }

    /// Parses `text` and resolves it on `board`.
    public static func resolve(_ text: String, in board: Board) throws(ResolutionError) -> Card {
        try CardReference(parsing: text).resolve(in: board)
    }

    private static func card(id: CardID, in board: Board) throws(ResolutionError) -> Card {
        if let card = board.cards[id] { return card }
        if board.purged.contains(id) { throw ResolutionError(.gone, "card \(id) was purged from board \(board.id)") }
        throw ResolutionError(.notFound, "no card \(id) on board \(board.id)")
    }

    private func resolveBare(_ text: String, in board: Board) throws(ResolutionError) -> Card {
        var matches: [(how: String, card: Card)] = []
        if text.allSatisfy(\.isASCIIDigit), let n = Int(text), let card = board.card(number: n) {
            matches.append(("#\(n)", card))
        }
        if let card = board.cards[CardID(text)] { matches.append(("id:\(text)", card)) }
        if let card = board.card(ref: text) { matches.append(("ref:\(text)", card)) }
        var distinct: [(how: String, card: Card)] = []
        for match in matches where !distinct.contains(where: { $0.card.id == match.card.id }) {
            distinct.append(match)
        }
        if distinct.count == 1 { return distinct[0].card }
        if distinct.count > 1 {
            let options = distinct.map { "\($0.how) (#\($0.card.number) \(FeedText.quotedTitle($0.card.title)))" }
            throw ResolutionError(
                .ambiguous,
                "\"\(text)\" could be \(options.joined(separator: " or ")); write \(distinct.map(\.how).joined(separator: " or "))")
        }
        if board.purged.contains(CardID(text)) {
            throw ResolutionError(.gone, "card \(text) was purged from board \(board.id)")
        }
        if text.allSatisfy(\.isASCIIDigit) { throw ResolutionError(.notFound, "no card #\(text) on board \(board.id)") }
        throw ResolutionError(.notFound, "no card \(text) on board \(board.id) (by id or ref)")
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}

extension Character {
    /// Whether this is one of `0`…`9`.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
