import BoardClientCore
import BoardCore
import BoardWire
import CorkApp
import Foundation

/// What the web session sends the page on `/live` (docs/web.md), each encoded as one JSON text message.
enum LiveMessage {
    struct BoardMeta: Encodable {
        var id: BoardID
        var name: String
        var labels: [Label]
        var milestones: [Milestone]
        var members: [Member]

        init(_ board: Board) {
            id = board.id
            name = board.name
            labels = board.labels
            milestones = board.milestones
            members = board.members.values.sorted { $0.id < $1.id }
        }
    }

    struct ColumnView: Encodable {
        var column: Column
        var cards: [Card]

        enum CodingKeys: String, CodingKey {
            case id, name, wip, cards
            case inProgress = "in_progress"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(column.id, forKey: .id)
            try c.encode(column.name, forKey: .name)
            try c.encodeIfPresent(column.wip, forKey: .wip)
            try c.encodeIfPresent(column.inProgress, forKey: .inProgress)
            try c.encode(cards, forKey: .cards)
        }
    }

    struct Welcome: Encodable {
        let t = "welcome"
        var user: UserID
        var name: String
        var role: Role?
        var session: SessionID
        var boards: [BoardSummaryView]
        var board: BoardID
        var version: String
    }

    struct BoardSummaryView: Encodable {
        var id: BoardID
        var name: String
    }

    /// The user's boards again, asked for by the page (`boards`): one made meanwhile elsewhere joins the picker.
    struct Boards: Encodable {
        let t = "boards"
        var boards: [BoardSummaryView]
    }

    struct FullBoard: Encodable {
        let t = "board"
        var seq: UInt64
        var board: BoardMeta
        var columns: [ColumnView]

        init(_ board: Board) {
            let snapshot = board.snapshot()
            seq = board.seq
            self.board = BoardMeta(board)
            columns = snapshot.columns.map { ColumnView(column: $0.column, cards: $0.cards) }
        }
    }

    struct Diff: Encodable {
        let t = "diff"
        var seq: UInt64
        var removedColumns: [Index]
        var insertedColumns: [ColumnInsertion]
        var movedColumns: [ColumnMove]
        var updatedColumns: [Column]
        var changes: [String: Changes]
        var moves: [Move]
        var updated: [Card]

        struct Index: Encodable {
            var index: Int
            var id: String
        }
        struct ColumnInsertion: Encodable {
            var index: Int
            var column: Column
        }
        struct ColumnMove: Encodable {
            var id: ColumnID
            var from: Int
            var to: Int
        }
        struct Insertion: Encodable {
            var index: Int
            var card: Card
        }
        struct Changes: Encodable {
            var deleted: [Index]
            var inserted: [Insertion]
        }
        struct Move: Encodable {
            var card: Card
            var fromColumn: ColumnID
            var fromIndex: Int
            var toColumn: ColumnID
            var toIndex: Int
            enum CodingKeys: String, CodingKey {
                case card
                case fromColumn = "from_column"
                case fromIndex = "from_index"
                case toColumn = "to_column"
                case toIndex = "to_index"
            }
        }

        enum CodingKeys: String, CodingKey {
            case t, seq
            case removedColumns = "removed_columns"
            case insertedColumns = "inserted_columns"
            case movedColumns = "moved_columns"
            case updatedColumns = "updated_columns"
            case changes, moves, updated
        }

        init(_ diff: SnapshotDiff) {
            seq = diff.seq
            removedColumns = diff.removedColumns.map { Index(index: $0.index, id: $0.id.rawValue) }
            insertedColumns = diff.insertedColumns.map { ColumnInsertion(index: $0.index, column: $0.column) }
            movedColumns = diff.movedColumns.map { ColumnMove(id: $0.id, from: $0.fromIndex, to: $0.toIndex) }
            updatedColumns = diff.updatedColumns
            changes = [:]
            for (column, change) in diff.changes where !change.isEmpty {
                changes[column.rawValue] = Changes(
                    deleted: change.deleted.map { Index(index: $0.index, id: $0.id.rawValue) },
                    inserted: change.inserted.map { Insertion(index: $0.index, card: $0.card) })
            }
            moves = diff.moves.map {
                Move(card: $0.card, fromColumn: $0.fromColumn, fromIndex: $0.fromIndex, toColumn: $0.toColumn, toIndex: $0.toIndex)
            }
            updated = diff.updated
        }
    }

    struct FeedItem: Encodable {
        var seq: UInt64?
        var at: Int64
        var user: String
        var kind: String
        var text: String
        var card: CardID?
        var own: Bool
    }

    struct Feed: Encodable {
        let t = "feed"
        var items: [FeedItem]
        var replace: Bool
    }

    struct PresenceView: Encodable {
        var session: SessionID
        var user: UserID
        var name: String
        var state: PresenceActivity
        var card: CardID?
        var column: ColumnID?
        var index: Int?
        var away: Bool
        /// What the person said about being away (`/away lunch` in cork), while away.
        var note: String?
    }

    /// Everyone else on the board: the page replaces its list.
    struct Presence: Encodable {
        let t = "presence"
        var sessions: [PresenceView]
    }

    /// What changed since the last `presence`: sessions joined or changed (`set`) and gone (`left`); the page updates
    /// its list.
    struct PresenceChange: Encodable {
        let t = "presence"
        var set: [PresenceView]
        var left: [SessionID]
    }

    struct Status: Encodable {
        let t = "status"
        var state: String
        var detail: String
        var pending: Int
    }

    struct Rejected: Encodable {
        let t = "rejected"
        var code: String
        var reason: String
        var op: String
        var card: CardID?
    }

    struct Filter: Encodable {
        let t = "filter"
        var q: String
        var cards: [CardID]?
        var error: String?
    }

    struct Archived: Encodable {
        let t = "archived"
        var cards: [Card]
    }

    /// An inbox entry as the page shows it: Protocol.md's entry (its `user` left out: always the page's) and the
    /// sentence `cork inbox` prints for it (InboxText), with the card as `#N` when it is on the board shown.
    struct InboxEntryView: Encodable {
        var id: Int64
        var board: BoardID
        var seq: UInt64
        var card: CardID?
        var kind: String
        var actor: UserID
        var at: Int64
        var text: String
        var read: Bool
        var sentence: String

        init(_ entry: InboxEntry, on board: Board?) {
            id = entry.id
            self.board = entry.board
            seq = entry.seq
            card = entry.card
            kind = entry.kind.rawValue
            actor = entry.actor
            at = entry.at.milliseconds
            text = entry.text
            read = entry.read
            sentence = InboxText.sentence(entry, on: board)
        }
    }

    /// A page of the inbox (newest first), on open and answering the page's `inbox`.
    struct Inbox: Encodable {
        let t = "inbox"
        /// Unread entries in the whole inbox; absent with `error`.
        var unread: Int?
        var entries: [InboxEntryView]
        /// The `before` the page asked with: the entries follow those it has.
        var before: Int64?
        /// Whether older entries may be left (the page was full).
        var more: Bool
        var error: String?
    }

    /// A new entry, pushed by the server.
    struct InboxEntryPushed: Encodable {
        let t = "inbox.entry"
        var entry: InboxEntryView
        var unread: Int
    }

    /// Entries read on one of the user's clients (this page included).
    struct InboxRead: Encodable {
        let t = "inbox.read"
        var ids: [Int64]
        var unread: Int
    }

    struct Failure: Encodable {
        let t = "error"
        var code: String
        var message: String
    }
}
