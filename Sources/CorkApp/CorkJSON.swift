import BoardCore
import Foundation

/// The machine-readable output of `cork … --json`: one JSON object on one line, keys sorted.
///
/// Cards, boards and activity records have the protocol's shapes (Protocol.md, "snapshot" and "Activity
/// records"), so a script that reads the protocol reads these too.
public enum CorkJSON {
    /// The result of a command that changed (or found) one card: `{"board","card","seq"}`, plus `"noop":true` when
    /// nothing changed and `"existing":true` when `cork add --ref` found the card already there.
    public struct CardResult: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The card after the change.
        public var card: Card
        /// The change's seq (the board's seq for a no-op or an existing card).
        public var seq: UInt64
        /// Present and true when the op changed nothing.
        public var noop: Bool?
        /// Present and true when `cork add --ref` returned a card that was already there.
        public var existing: Bool?

        /// Makes a result.
        public init(board: BoardID, card: Card, seq: UInt64, noop: Bool? = nil, existing: Bool? = nil) {
            self.board = board
            self.card = card
            self.seq = seq
            self.noop = noop
            self.existing = existing
        }
    }

    /// The result of a change that is not about one card (chat): `{"board","seq"}`.
    public struct ChangeResult: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The change's seq.
        public var seq: UInt64
        /// Present and true when the op changed nothing.
        public var noop: Bool?

        /// Makes a result.
        public init(board: BoardID, seq: UInt64, noop: Bool? = nil) {
            self.board = board
            self.seq = seq
            self.noop = noop
        }
    }

    /// One board of `cork boards --json`.
    public struct BoardRow: Encodable, Sendable {
        /// The board's id.
        public var board: String
        /// Its name.
        public var name: String
        /// The user's role on it.
        public var role: String
        /// Its seq.
        public var seq: UInt64

        /// Makes a row.
        public init(board: String, name: String, role: String, seq: UInt64) {
            self.board = board
            self.name = name
            self.role = role
            self.seq = seq
        }
    }

    /// `cork boards --json`: `{"boards":[…]}`.
    public struct Boards: Encodable, Sendable {
        /// The boards, sorted by id.
        public var boards: [BoardRow]
        /// Wraps rows.
        public init(boards: [BoardRow]) { self.boards = boards }
    }

    /// `cork search --json`: the canonical query and the matching cards in board order.
    public struct SearchResult: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The query in canonical form.
        public var query: String
        /// The matching cards.
        public var cards: [Card]
        /// Makes a result.
        public init(board: BoardID, query: String, cards: [Card]) {
            self.board = board
            self.query = query
            self.cards = cards
        }
    }

    /// `cork history --json`: activity records oldest first, and whether older ones exist.
    public struct History: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The card, when the history is one card's.
        public var card: CardID?
        /// The records.
        public var activities: [Activity]
        /// Whether older records exist.
        public var more: Bool
        /// Makes a page.
        public init(board: BoardID, card: CardID?, activities: [Activity], more: Bool) {
            self.board = board
            self.card = card
            self.activities = activities
            self.more = more
        }
    }

    /// `cork show --json` without a card: the board snapshot.
    public struct BoardResult: Encodable, Sendable {
        /// The board snapshot (Protocol.md, "snapshot").
        public var board: Board
        /// Wraps a board.
        public init(board: Board) { self.board = board }
    }

    /// `cork board archive --json`: `{"board","archived":true}`.
    public struct ArchivedBoard: Encodable, Sendable {
        /// The board archived.
        public var board: BoardID
        /// Always true.
        public var archived = true
        /// Makes a result.
        public init(board: BoardID) { self.board = board }
    }

    /// `cork board create --json`: `{"board","name"}`.
    public struct CreatedBoard: Encodable, Sendable {
        /// The new board's id.
        public var board: BoardID
        /// Its name.
        public var name: String
        /// Makes a result.
        public init(board: BoardID, name: String) {
            self.board = board
            self.name = name
        }
    }

    /// `value` as one line of compact JSON with sorted keys (no trailing newline).
    public static func line<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
