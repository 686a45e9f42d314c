import Foundation
import PropertyBased
import Testing

@testable import BoardCore

/// Boards, mutations and generators shared by `HashTests`.
enum HashFixture {
    /// A card in `todo` with every other field at its default.
    static func plainCard(_ id: String, number: Int, rank: String = "V", title: String = "t") -> Card {
        Card(
            id: CardID(id), number: number, column: "todo", rank: Rank(rank)!, title: title,
            createdBy: "alice", createdAt: Timestamp(milliseconds: 0))
    }

    /// A day that is known to be valid.
    static func day(_ y: Int, _ m: Int, _ d: Int) -> Day { Day(year: y, month: m, day: d)! }

    /// A board where every field of every kind of element holds a non-default value, so any mutation shows.
    static func richBoard() -> Board {
        var board = Board(
            id: "b", name: "Board",
            owner: "alice",
            columns: [
                Column(id: "todo", name: "TODO"),
                Column(id: "doing", name: "DOING", wip: WIPLimit(limit: 3, hard: true)),
                Column(id: "done", name: "DONE"),
            ])
        board.seq = 42
        board.labels = [
            Label(id: "l1", name: "bug", color: HexColor(red: 0xD7, green: 0x3A, blue: 0x4A)),
            Label(id: "l2", name: "ui", color: HexColor(red: 0x00, green: 0x80, blue: 0xFF)),
        ]
        board.milestones = [
            Milestone(id: "m1", title: "Beta", description: "first cut", due: day(2025, 6, 1), closed: false),
            Milestone(id: "m2", title: "GA", description: "", due: nil, closed: true),
        ]
        board.members["bob"] = Member(id: "bob", role: .editor, name: "Bob B")
        board.members["ci"] = Member(id: "ci", role: .bot)
        board.cards["c1"] = Card(
            id: "c1", number: 1, column: "doing", rank: Rank("V")!, title: "Fix login",
            description: "It *fails*", descriptionSeq: 7, due: day(2025, 5, 20), labels: ["l1", "l2"],
            assignees: ["alice", "bob"], milestone: "m1",
            checklist: [
                ChecklistItem(id: "k1", text: "repro", done: true),
                ChecklistItem(id: "k2", text: "fix", done: false),
            ],
            comments: [
                Comment(id: "x1", author: "bob", at: Timestamp(milliseconds: 1_000), text: "on it"),
                Comment(
                    id: "x2", author: "alice", at: Timestamp(milliseconds: 2_000), text: "thanks",
                    editedAt: Timestamp(milliseconds: 2_500)),
            ],
            closed: false, archived: false, ref: "JIRA-12",
            createdBy: "alice", createdAt: Timestamp(milliseconds: 500),
            updatedBy: "bob", updatedAt: Timestamp(milliseconds: 3_000))
        board.cards["c2"] = Card(
            id: "c2", number: 2, column: "done", rank: Rank("k")!, title: "Ship", closed: true, archived: true,
            createdBy: "ci", createdAt: Timestamp(milliseconds: 600))
        board.nextCardNumber = 4
        board.purged = ["c3"]
        return board
    }

    /// A named change to a board; `field` is `Type.property` for the property it changes.
    struct Mutation: Sendable {
        let field: String
        let change: @Sendable (inout Board) -> Void

        init(_ field: String, _ change: @escaping @Sendable (inout Board) -> Void) {
            self.field = field
            self.change = change
        }

        /// A change to card `c1`.
        static func card(_ field: String, _ change: @escaping @Sendable (inout Card) -> Void) -> Mutation {
            Mutation("Card.\(field)") { board in change(&board.cards["c1"]!) }
        }
    }

    /// One mutation per field of every element type (and then some): each must change the content hash.
    static let mutations: [Mutation] = [
        // Board
        Mutation("Board.id") { $0.id = "b2" },
        Mutation("Board.name") { $0.name = "Board!" },
        Mutation("Board.columns") { $0.columns.swapAt(0, 2) },
        Mutation("Board.columns") { $0.columns.append(Column(id: "qa", name: "QA")) },
        Mutation("Board.columns") { $0.columns.removeLast() },
        Mutation("Board.cards") { $0.cards["c9"] = plainCard("c9", number: 9) },
        Mutation("Board.cards") { $0.cards["c2"] = nil },
        Mutation("Board.labels") { $0.labels.swapAt(0, 1) },
        Mutation("Board.labels") { $0.labels.removeLast() },
        Mutation("Board.milestones") { $0.milestones.swapAt(0, 1) },
        Mutation("Board.milestones") { $0.milestones.append(Milestone(id: "m3", title: "Later")) },
        Mutation("Board.members") { $0.members["dave"] = Member(id: "dave", role: .viewer) },
        Mutation("Board.members") { $0.members["ci"] = nil },
        Mutation("Board.nextCardNumber") { $0.nextCardNumber = 5 },
        Mutation("Board.purged") { $0.purged.insert("c4") },
        Mutation("Board.purged") { $0.purged = [] },
        Mutation("Board.remindHours") { $0.remindHours = 48 },
        // Column
        Mutation("Column.id") { $0.columns[0] = Column(id: "backlog", name: "TODO") },
        Mutation("Column.name") { $0.columns[0].name = "To do" },
        Mutation("Column.wip") { $0.columns[0].wip = WIPLimit(limit: 3, hard: true) },
        Mutation("Column.wip") { $0.columns[1].wip = nil },
        Mutation("Column.inProgress") { $0.columns[0].inProgress = true },
        Mutation("Column.inProgress") { $0.columns[0].inProgress = false },
        Mutation("WIPLimit.limit") { $0.columns[1].wip!.limit = 4 },
        Mutation("WIPLimit.hard") { $0.columns[1].wip!.hard = false },
        // Card (c1 unless stated)
        Mutation("Card.id") { board in
            var card = board.cards.removeValue(forKey: "c1")!
            card.id = "c0"
            board.cards["c0"] = card
        },
        .card("number") { $0.number = 3 },
        .card("column") { $0.column = "todo" },
        .card("rank") { $0.rank = Rank("W")! },
        .card("title") { $0.title = "Fix logout" },
        .card("title") { $0.title = "Fix login " },
        .card("description") { $0.description = "" },
        .card("descriptionSeq") { $0.descriptionSeq = 8 },
        .card("due") { $0.due = nil },
        .card("due") { $0.due = day(2025, 5, 21) },
        .card("labels") { $0.labels = ["l1"] },
        .card("labels") { $0.labels = ["l2", "l1"] },
        .card("assignees") { $0.assignees = [] },
        .card("assignees") { $0.assignees = ["alice", "ci"] },
        .card("milestone") { $0.milestone = nil },
        .card("milestone") { $0.milestone = "m2" },
        .card("checklist") { $0.checklist.reverse() },
        .card("checklist") { $0.checklist.removeLast() },
        .card("comments") { $0.comments.reverse() },
        .card("comments") {
            $0.comments.append(Comment(id: "x3", author: "ci", at: Timestamp(milliseconds: 0), text: ""))
        },
        .card("closed") { $0.closed = true },
        .card("archived") { $0.archived = true },
        .card("ref") { $0.ref = nil },
        .card("ref") { $0.ref = "" },
        .card("createdBy") { $0.createdBy = "bob" },
        .card("createdAt") { $0.createdAt = Timestamp(milliseconds: 501) },
        .card("updatedBy") { $0.updatedBy = "alice" },
        .card("updatedAt") { $0.updatedAt = Timestamp(milliseconds: -1) },
        Mutation("Card.ref") { $0.cards["c2"]!.ref = "" },  // absent vs empty on a card that had none
        Mutation("Card.blockedBy") { $0.cards["c1"]!.blockedBy = ["c2"] },
        Mutation("Card.blockedBy") { $0.cards["c1"]!.blockedBy = ["c2", "c3"] },
        Mutation("Card.recur") { $0.cards["c1"]!.recur = Recurrence(every: .day) },
        Mutation("Card.recur") { $0.cards["c1"]!.recur = Recurrence(every: .week, days: ["mon"]) },
        Mutation("Card.recur") { $0.cards["c1"]!.recur = Recurrence(afterDoneDays: 2) },
        Mutation("Card.watchers") { $0.cards["c1"]!.watchers = ["bob"] },
        Mutation("Card.due") { $0.cards["c2"]!.due = day(1970, 1, 1) },
        Mutation("Card.closed") { $0.cards["c2"]!.closed = false },
        // ChecklistItem
        .card("checklist") { $0.checklist[0] = ChecklistItem(id: "k9", text: "repro", done: true) },
        Mutation("ChecklistItem.id") {
            $0.cards["c1"]!.checklist[0] = ChecklistItem(id: "k3", text: "repro", done: true)
        },
        Mutation("ChecklistItem.text") { $0.cards["c1"]!.checklist[0].text = "Repro" },
        Mutation("ChecklistItem.done") { $0.cards["c1"]!.checklist[1].done = true },
        // Comment
        Mutation("Comment.id") {
            let old = $0.cards["c1"]!.comments[0]
            $0.cards["c1"]!.comments[0] = Comment(id: "x7", author: old.author, at: old.at, text: old.text)
        },
        Mutation("Comment.author") { $0.cards["c1"]!.comments[0].author = "alice" },
        Mutation("Comment.at") { $0.cards["c1"]!.comments[0].at = Timestamp(milliseconds: 1_001) },
        Mutation("Comment.text") { $0.cards["c1"]!.comments[0].text = "on it." },
        Mutation("Comment.editedAt") { $0.cards["c1"]!.comments[0].editedAt = Timestamp(milliseconds: 1_000) },
        Mutation("Comment.editedAt") { $0.cards["c1"]!.comments[1].editedAt = nil },
        // Label
        Mutation("Label.id") { $0.labels[0] = Label(id: "l9", name: "bug", color: $0.labels[0].color) },
        Mutation("Label.name") { $0.labels[0].name = "Bug" },
        Mutation("Label.color") { $0.labels[0].color = HexColor(red: 0xD7, green: 0x3A, blue: 0x4B) },
        // Milestone
        Mutation("Milestone.id") { $0.milestones[1] = Milestone(id: "m9", title: "GA", closed: true) },
        Mutation("Milestone.title") { $0.milestones[0].title = "beta" },
        Mutation("Milestone.description") { $0.milestones[0].description = "" },
        Mutation("Milestone.due") { $0.milestones[0].due = nil },
        Mutation("Milestone.due") { $0.milestones[1].due = day(2025, 6, 1) },
        Mutation("Milestone.closed") { $0.milestones[0].closed = true },
        // Member
        Mutation("Member.id") { board in
            board.members["bob"] = nil
            board.members["rob"] = Member(id: "rob", role: .editor, name: "Bob B")
        },
        Mutation("Member.role") { $0.members["bob"]!.role = .owner },
        Mutation("Member.name") { $0.members["bob"]!.name = "" },
        Mutation("Member.name") { $0.members["ci"]!.name = "ci" },
    ]

    /// Random text: half ASCII (control characters included), half any other Unicode scalar.
    static let randomText = zip(Gen.bool, Gen.int(in: 0...0x7F), Gen.int(in: 0x80...0x10FFFF))
        .map { ascii, low, high in Unicode.Scalar(UInt32(ascii ? low : high)) ?? "\u{FFFD}" }
        .array(of: 0...24)
        .map { scalars in
            var s = ""
            s.unicodeScalars.append(contentsOf: scalars)
            return s
        }

    /// The stored property names of `value`, as `Type.property`.
    static func fieldNames(of value: Any) -> [String] {
        let mirror = Mirror(reflecting: value)
        return mirror.children.compactMap { $0.label.map { "\(mirror.subjectType).\($0)" } }
    }

    /// `board` with `seq` set to 0, for comparing content with `==`.
    static func withoutSeq(_ board: Board) -> Board {
        var copy = board
        copy.seq = 0
        return copy
    }

    /// Builds a board from the small-domain spec of `HashTests.hashesAreEqualExactlyWhenContentIsEqual`.
    static func smallDomainBoard(cards: [[Int]], top: [Int], seq: UInt64, reversed: Bool) -> Board {
        var board = Board(id: "b", name: "B", owner: "alice")
        board.seq = seq
        board.nextCardNumber = 1 + top[0] % 2
        if top[1] % 2 == 1 { board.purged = ["p1"] }
        board.members["bob"] = Member(id: "bob", role: top[2] % 2 == 0 ? .editor : .viewer)
        var built: [Card] = []
        for (i, spec) in cards.enumerated() {
            var card = plainCard("c\(i)", number: i + 1, title: ["a", "b"][spec[0] % 2])
            card.closed = spec[1] % 2 == 1
            card.column = ["todo", "doing"][spec[2] % 2]
            card.ref = [nil, "", "a"][spec[3] % 3]
            card.due = [nil, day(2025, 1, 1), day(2025, 1, 2)][spec[4] % 3]
            card.labels = [[], ["l1"], ["l1", "l2"]][spec[5] % 3]
            card.rank = Rank(["V", "W"][spec[6] % 2])!
            built.append(card)
        }
        if reversed {
            board.cards.reserveCapacity(64)
            built.reverse()
        }
        for card in built { board.cards[card.id] = card }
        return board
    }
}
