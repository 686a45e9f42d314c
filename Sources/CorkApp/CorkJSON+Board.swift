import BoardCore

extension CorkJSON {
    /// One milestone of `cork milestone list --json` (and of the milestone commands' results): its fields, its
    /// progress (`done` of `total` unarchived cards; done is closed or in the last column) and whether it is overdue.
    public struct MilestoneRow: Encodable, Sendable {
        /// The milestone's id.
        public var milestone: MilestoneID
        /// Its title.
        public var title: String
        /// Its description.
        public var description: String
        /// Its due date.
        public var due: Day?
        /// Whether it is closed.
        public var closed: Bool
        /// Its unarchived cards that are closed or in the last column.
        public var done: Int
        /// All its unarchived cards.
        public var total: Int
        /// Open, and due before today.
        public var overdue: Bool
    }

    /// `cork milestone list --json`: `{"board","milestones":[…]}`.
    public struct Milestones: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The milestones in board order.
        public var milestones: [MilestoneRow]
        /// Makes a list.
        public init(board: BoardID, milestones: [MilestoneRow]) {
            self.board = board
            self.milestones = milestones
        }
    }

    /// The result of a change to the board's structure (columns, milestones, members, the board's name):
    /// `{"board","seq"}`, `"noop":true` when nothing changed, and what the command is about after the change.
    public struct StructureResult: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The board's name after the change.
        public var name: String?
        /// The change's seq (the board's seq for a no-op).
        public var seq: UInt64
        /// Present and true when the op changed nothing.
        public var noop: Bool?
        /// The columns after a column change, left to right.
        public var columns: [Column]?
        /// The milestone after a milestone change (as it was, for a delete).
        public var milestone: MilestoneRow?
        /// The members after a member change.
        public var members: [MemberRow]?
        /// The labels after a label change.
        public var labels: [Label]?
        /// The board's reminder lead time in hours after `cork board remind` (the server's default: absent, with
        /// `remind_default` true).
        public var remindHours: Int?
        /// True when the board uses the server's default lead time.
        public var remindDefault: Bool?

        enum CodingKeys: String, CodingKey {
            case board, name, seq, noop, columns, milestone, members, labels
            case remindHours = "remind_hours"
            case remindDefault = "remind_default"
        }

        /// Makes a result.
        public init(board: BoardID, seq: UInt64, noop: Bool) {
            self.board = board
            self.seq = seq
            self.noop = noop ? true : nil
        }
    }

    /// One member of `cork board members --json`.
    public struct MemberRow: Encodable, Sendable {
        /// The user id.
        public var user: UserID
        /// The display name (may be empty).
        public var name: String
        /// The role on the board.
        public var role: Role
        /// Whether a session of the user is on the board now (present in the board's presence); nil when unknown.
        public var online: Bool?
        /// Makes a row.
        public init(user: UserID, name: String, role: Role, online: Bool?) {
            self.user = user
            self.name = name
            self.role = role
            self.online = online
        }
    }

    /// `cork board members --json`: `{"board","members":[…]}`, owners first, then by user id.
    public struct Members: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The members.
        public var members: [MemberRow]
        /// Makes a list.
        public init(board: BoardID, members: [MemberRow]) {
            self.board = board
            self.members = members
        }
    }

    /// `cork checklist CARD list --json`: the card's id and number, its items in order, and the progress.
    public struct Checklist: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The card's id.
        public var card: CardID
        /// The card's number.
        public var number: Int
        /// The items in order (item `n` of the commands is `items[n-1]`).
        public var items: [ChecklistItem]
        /// Items done.
        public var done: Int
        /// All items.
        public var total: Int
        /// The checklist of `card`.
        public init(board: BoardID, card: Card) {
            self.board = board
            self.card = card.id
            number = card.number
            items = card.checklist
            done = card.checklist.filter(\.done).count
            total = card.checklist.count
        }
    }

    /// `cork purge --json`: `{"board","seq","card","number","title"}` of the card that is gone.
    public struct Purged: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The purge's seq.
        public var seq: UInt64
        /// The purged card's id.
        public var card: CardID
        /// Its number.
        public var number: Int
        /// Its title.
        public var title: String
        /// Makes a result.
        public init(board: BoardID, seq: UInt64, card: Card) {
            self.board = board
            self.seq = seq
            self.card = card.id
            number = card.number
            title = card.title
        }
    }

    /// `cork undo --json` and `cork redo --json`: the new change's seq, the change it undid, and what the undone
    /// change did in words.
    public struct Undone: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// `undo` or `redo`.
        public var action: String
        /// The seq of the change this command made.
        public var seq: UInt64
        /// The change it undid (for a redo: the undo it undid).
        public var undid: UInt64
        /// What the original change did, e.g. `moved #3 "Ship corkd" TODO → DOING`.
        public var change: String
        /// Present and true when the undo changed nothing.
        public var noop: Bool?
        /// Makes a result.
        public init(board: BoardID, action: String, seq: UInt64, undid: UInt64, change: String, noop: Bool) {
            self.board = board
            self.action = action
            self.seq = seq
            self.undid = undid
            self.change = change
            self.noop = noop ? true : nil
        }
    }
}

extension CorkJSON {
    /// `cork labels --json`: the board's labels with how many unarchived cards carry each.
    public struct Labels: Encodable, Sendable {
        /// One label.
        public struct Row: Encodable, Sendable {
            /// The label's id.
            public var id: LabelID
            /// Its name.
            public var name: String
            /// Its colour, `#rrggbb`.
            public var color: HexColor
            /// How many unarchived cards carry it.
            public var cards: Int
        }

        /// The board.
        public var board: BoardID
        /// Its labels, in the board's order.
        public var labels: [Row]

        /// The labels of `board`.
        public init(_ board: Board) {
            self.board = board.id
            labels = board.labels.map { label in
                Row(
                    id: label.id, name: label.name, color: label.color,
                    cards: board.cards.values.filter { !$0.archived && $0.labels.contains(label.id) }.count)
            }
        }
    }
}
