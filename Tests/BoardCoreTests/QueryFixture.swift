import Testing

@testable import BoardCore

/// A small board for query tests, seen on Tuesday 2026-03-10.
///
/// Unarchived cards in board order (columns TODO, DOING, DONE, QA; rank within each):
/// #2 #1 #12 | #3 #6 #8 | #4 #7 | #9. Card #5 is archived.
enum QueryFixture {
    /// The day the tests run "on".
    static let today = Day(year: 2026, month: 3, day: 10)!

    /// The context with alice asking.
    static let context = QueryContext(today: today, me: "alice")

    /// The unarchived card numbers in board order.
    static let unarchived = [2, 1, 12, 3, 6, 8, 4, 7, 9]

    /// The fixture board.
    static let board: Board = {
        var board = Board(id: "main", name: "Main", owner: "alice")
        board.columns.append(Column(id: "qa", name: "In review"))
        board.members["bob"] = Member(id: "bob", role: .editor)
        board.members["carol"] = Member(id: "carol", role: .editor)
        board.labels = [
            Label(id: "l-bug", name: "Bug", color: HexColor(red: 200, green: 0, blue: 0)),
            Label(id: "l-ui", name: "UI", color: HexColor(red: 0, green: 0, blue: 200)),
            Label(id: "l-rev", name: "needs review", color: HexColor(red: 0, green: 200, blue: 0)),
        ]
        board.milestones = [
            Milestone(id: "m1", title: "v1.0"),
            Milestone(id: "m2", title: "Beta 2"),
            Milestone(id: "m3", title: "none"),
        ]
        let cards = [
            card(1, "todo", "B", "Fix login bug", description: "Users cannot sign in", due: today.adding(days: -1),
                 labels: ["l-bug"], assignees: ["alice"], milestone: "m1", ref: "JIRA-12"),
            card(2, "todo", "A", "Design settings page", description: "Dark mode too", due: today.adding(days: 6),
                 labels: ["l-ui"], assignees: ["bob"], milestone: "m2"),
            card(3, "doing", "A", "Write docs", labels: ["l-rev"], ref: "ci:build-7"),
            card(4, "done", "A", "Old crash", due: Day(year: 2026, month: 3, day: 1), labels: ["l-bug"],
                 assignees: ["alice", "bob"], closed: true, ref: "JIRA-7"),
            card(5, "todo", "C", "Archived login idea", labels: ["l-bug"], assignees: ["alice"], archived: true),
            card(6, "doing", "B", "Release notes", due: today, labels: ["l-bug", "l-ui"], assignees: ["carol"],
                 milestone: "m1", ref: "JIRA-123"),
            card(7, "done", "B", "Plan v2", due: today.adding(days: 7), milestone: "m3", closed: true),
            card(8, "doing", "C", "Buy 12 chairs"),
            card(9, "qa", "A", "Check release"),
            card(12, "todo", "D", "Audit budget", description: "Quarterly review"),
        ]
        for card in cards { board.cards[card.id] = card }
        board.nextCardNumber = 13
        return board
    }()

    /// Makes a card with number `n` and id `c<n>`.
    static func card(
        _ n: Int, _ column: ColumnID, _ rank: String, _ title: String, description: String = "", due: Day? = nil,
        labels: [LabelID] = [], assignees: [UserID] = [], milestone: MilestoneID? = nil, closed: Bool = false,
        archived: Bool = false, ref: String? = nil
    ) -> Card {
        Card(
            id: CardID("c\(n)"), number: n, column: column, rank: Rank(rank)!, title: title, description: description,
            due: due, labels: labels, assignees: assignees, milestone: milestone, closed: closed, archived: archived,
            ref: ref, createdBy: "alice", createdAt: Timestamp(milliseconds: 0))
    }

    /// The numbers of the cards `text` selects on the fixture board, in board order.
    static func numbers(_ text: String, me: UserID? = "alice") throws -> [Int] {
        try Query.parse(text).filter(board, context: QueryContext(today: today, me: me)).map(\.number)
    }

    /// The error `text` fails to parse with, or nil when it parses.
    static func parseError(_ text: String) -> QueryError? {
        do {
            _ = try Query.parse(text)
            return nil
        } catch {
            return error
        }
    }
}
