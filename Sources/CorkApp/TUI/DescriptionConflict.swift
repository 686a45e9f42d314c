import BoardCore

/// A description edit the server refused because someone else changed it first.
public struct DescriptionConflict: Hashable, Sendable {
    /// The card.
    public var card: CardID
    /// This user's text.
    public var mine: String
    /// The text now on the server.
    public var theirs: String
    /// The seq of the server's text (the base for an overwrite).
    public var seq: UInt64
    /// A merge left unfinished (it still had conflict markers), which `/merge` opens again.
    public var draft: String?

    public init(card: CardID, mine: String, theirs: String, seq: UInt64, draft: String? = nil) {
        self.card = card
        self.mine = mine
        self.theirs = theirs
        self.seq = seq
        self.draft = draft
    }

    /// Both texts with conflict markers, for the user to merge in `$EDITOR`.
    public var marked: String { "<<<<<<< mine\n\(mine)\n=======\n\(theirs)\n>>>>>>> theirs\n" }

    /// The text merged from `marked`, ending as the two sides do: the marked text ends in a newline after
    /// `>>>>>>> theirs`, which an editor keeps under the last merged line, so a merge of two texts that end without one
    /// would otherwise gain one.
    public func merged(_ text: String) -> String {
        guard !mine.hasSuffix("\n"), !theirs.hasSuffix("\n") else { return text }
        var text = Substring(text)
        while text.hasSuffix("\n") { text = text.dropLast() }
        return String(text)
    }

    /// Whether `text` still has a conflict marker line (`<<<<<<<` or `>>>>>>>`; a lone `=======` is also a Markdown
    /// heading underline, so it does not count by itself).
    public static func hasMarkers(_ text: String) -> Bool {
        text.split(separator: "\n", omittingEmptySubsequences: false).contains { line in
            line.hasPrefix("<<<<<<<") || line.hasPrefix(">>>>>>>")
        }
    }
}
