import BoardCore

/// This user's own changes, newest last, for `u` (undo) and `U` (redo), each with what it did in words. Pure.
///
/// Undo walks back the user's changes strictly in order: `u` sends an undo for the newest entry and the entry leaves
/// the stack only when the server's delta says it was undone (then it moves to the redo side, as the undo change that
/// reverted it). A refused undo keeps its entry on top with the reason; `u` tries it again and only an explicit
/// `skip` goes past it, so nothing is skipped silently. Redo is an undo of that undo change, through the server; when
/// done, the entry moves back to the undo side as the redo change. A new change of the user's clears the redo side.
public struct UndoStack: Hashable, Sendable {
    /// One change that can be undone (or redone).
    public struct Entry: Hashable, Sendable {
        /// The change an undo request names: the user's change on the undo side, the undo that reverted it on the
        /// redo side.
        public var seq: UInt64
        /// What the user's original change did, e.g. `moved #3 "Ship corkd" TODO → DOING`.
        public var words: String
        /// Why the last request for it was refused, if it was.
        public var refusal: String?

        /// An entry.
        public init(seq: UInt64, words: String, refusal: String? = nil) {
            self.seq = seq
            self.words = words
            self.refusal = refusal
        }
    }

    /// Undo or redo.
    public enum Direction: Hashable, Sendable {
        /// Take back the newest change.
        case undo
        /// Make again the newest change taken back.
        case redo

        /// The verb for the feed: `undo` or `redo`.
        public var verb: String { self == .undo ? "undo" : "redo" }
        /// The verb in the past: `undid` or `redid`.
        public var done: String { self == .undo ? "undid" : "redid" }
    }

    /// The request sent and not answered yet.
    public struct Waiting: Hashable, Sendable {
        /// Undo or redo.
        public var direction: Direction
        /// The entry it is for.
        public var entry: Entry
    }

    /// Changes `u` undoes, newest last.
    public private(set) var undoable: [Entry] = []
    /// Undone changes `U` redoes, newest last.
    public private(set) var redoable: [Entry] = []
    /// The undo or redo sent and not answered yet: no other is sent meanwhile, so they stay in order.
    public private(set) var waiting: Waiting?
    /// The most entries kept on each side.
    public static let depth = 100

    /// An empty stack.
    public init() {}

    /// Records a change the user made (not an undo): it goes on top, and nothing is left to redo.
    public mutating func record(seq: UInt64, words: String) {
        undoable.append(Entry(seq: seq, words: words))
        if undoable.count > Self.depth { undoable.removeFirst(undoable.count - Self.depth) }
        redoable = []
    }

    /// The entry to send a request for in `direction`, marked as waiting; or why there is none (nothing there, or
    /// a request still unanswered).
    public mutating func begin(_ direction: Direction) -> Result<Entry, UndoStackRefusal> {
        if let waiting {
            return .failure(UndoStackRefusal("still waiting for the server to \(waiting.direction.verb) \(waiting.entry.words)"))
        }
        guard let entry = (direction == .undo ? undoable : redoable).last else {
            return .failure(UndoStackRefusal(direction == .undo ? "nothing of yours to undo" : "nothing to redo"))
        }
        waiting = Waiting(direction: direction, entry: entry)
        return .success(entry)
    }

    /// The change `undone` was undone by the change `seq` (an own delta with `undo_of`): the entry moves to the
    /// other side. Returns which way it went and the entry, or nil when `undone` is not on the stack.
    public mutating func completed(undone: UInt64, by seq: UInt64) -> (Direction, Entry)? {
        if waiting?.entry.seq == undone { waiting = nil }
        if let index = undoable.lastIndex(where: { $0.seq == undone }) {
            let entry = undoable.remove(at: index)
            redoable.append(Entry(seq: seq, words: entry.words))
            return (.undo, entry)
        }
        if let index = redoable.lastIndex(where: { $0.seq == undone }) {
            let entry = redoable.remove(at: index)
            undoable.append(Entry(seq: seq, words: entry.words))
            return (.redo, entry)
        }
        return nil
    }

    /// The server refused the undo of `seq`: its entry stays where it is, with the reason. Returns which way it was
    /// and the entry, or nil when `seq` is not on the stack.
    public mutating func refused(_ seq: UInt64, reason: String) -> (Direction, Entry)? {
        if waiting?.entry.seq == seq { waiting = nil }
        if let index = undoable.lastIndex(where: { $0.seq == seq }) {
            undoable[index].refusal = reason
            return (.undo, undoable[index])
        }
        if let index = redoable.lastIndex(where: { $0.seq == seq }) {
            redoable[index].refusal = reason
            return (.redo, redoable[index])
        }
        return nil
    }

    /// Drops the newest entry of `direction` on the user's word (`/undo skip`), so the next one can be reached.
    public mutating func skip(_ direction: Direction) -> Entry? {
        if let waiting, waiting.direction == direction { return nil }
        return direction == .undo ? undoable.popLast() : redoable.popLast()
    }
}

/// Why `u` or `U` sends nothing.
public struct UndoStackRefusal: Error, Hashable, Sendable {
    /// What to tell the user.
    public var message: String
    init(_ message: String) { self.message = message }
}
