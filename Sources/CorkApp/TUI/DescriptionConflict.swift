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

    /// Both texts with conflict markers, for the user to merge in `$EDITOR`.
    public var marked: String { "<<<<<<< mine\n\(mine)\n=======\n\(theirs)\n>>>>>>> theirs\n" }

    /// Whether `text` still has a conflict marker line (`<<<<<<<` or `>>>>>>>`; a lone `=======` is also a Markdown
    /// heading underline, so it does not count by itself).
    public static func hasMarkers(_ text: String) -> Bool {
        text.split(separator: "\n", omittingEmptySubsequences: false).contains { line in
            line.hasPrefix("<<<<<<<") || line.hasPrefix(">>>>>>>")
        }
    }
}
