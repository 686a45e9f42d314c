/// Why the reducer refused an op: a code from a closed set and a sentence for people.
public struct Rejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String
    /// The value that made the op fail, when useful: the current description on a `conflict`, the existing
    /// card on a `duplicate_ref`.
    public var current: JSONValue?

    /// Makes a rejection.
    public init(_ code: Code, _ message: String, current: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.current = current
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// The closed set of reasons an op is refused.
    public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
        /// The card, column, label, milestone, member, comment or item does not exist (or is not visible).
        case notFound = "not_found"
        /// The card was purged; the op can never apply.
        case gone
        /// The actor's role does not allow the op.
        case forbidden
        /// A field is malformed or out of range (empty title, bad colour, bad id, control characters, …).
        case invalid
        /// The description changed after the seq the edit was based on; `current` holds it.
        case conflict
        /// A hard WIP limit would be exceeded.
        case wipLimit = "wip_limit"
        /// Another card already has this external reference; `current` holds that card's id and number.
        case duplicateRef = "duplicate_ref"
        /// The id is already used by another object of the same kind.
        case duplicateID = "duplicate_id"
        /// A text or a collection would exceed its limit.
        case tooLarge = "too_large"
        /// Someone else changed a field of this change since; undoing it would overwrite their work.
        case undoConflict = "undo_conflict"
        /// The change cannot be undone (chat, purge, deletions of labels, milestones and comments, members).
        case notUndoable = "not_undoable"
        /// The column still holds cards and cannot be removed.
        case notEmpty = "not_empty"
        /// The card waits for others that are not done and the column is in progress; `current` holds their ids.
        case blocked
        /// The dependency would make a card wait for itself.
        case cycle
    }
}
