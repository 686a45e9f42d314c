import BoardCore
import Foundation
import Testing

@testable import CorkApp

@Suite struct TrelloImportTests {
    static let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/trello-board.json")

    static func fixture() throws -> Data { try Data(contentsOf: fixtureURL) }

    /// A fresh board with TODO, DOING, DONE, owned by alice.
    static func freshBoard() -> TestBoard { TestBoard() }

    /// Applies every op as alice; each must be accepted and change the board.
    static func applyAll(_ ops: [Op], to t: inout TestBoard, sourceLocation: SourceLocation = #_sourceLocation) {
        for op in ops {
            if let (change, _) = t.apply(op, sourceLocation: sourceLocation) {
                #expect(!change.isNoop, "\(op.kind) changed nothing", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func fixtureImportsIntoAFreshBoard() throws {
        var t = Self.freshBoard()
        let plan = try TrelloImport(json: Self.fixture(), onto: t.board)
        Self.applyAll(plan.ops, to: &t)
        let board = t.board

        // Lists: To Do, Doing and Done reuse TODO, DOING, DONE; Review is new, placed after DOING.
        #expect(board.columns.map(\.name) == ["TODO", "DOING", "Review", "DONE"])
        let review = try #require(board.column(named: "Review")).id
        #expect(review == "t-65a0d0d0d0d0d0d0d0d0d003")

        // Labels with Trello's colours; the unnamed one is named after its colour; null colour is grey.
        #expect(board.labels.map(\.name) == ["bug", "infra", "dark sky", "Design", "someday"])
        #expect(board.labels.map(\.color.description) == ["#eb5a46", "#61bd4f", "#0098b7", "#eddbf4", "#b3bac5"])

        // Cards list by list in pos order; closed list cards last, archived, in the first column.
        let titles = board.orderedCards.sorted { $0.number < $1.number }.map(\.title)
        #expect(titles == [
            "Newsletter integration", "Set up CI pipeline", "Fix login, \"remember me\" bug", "Write landing page copy",
            "Review analytics dashboards", "Launch announcement", "Old style guide", "Dark mode", "Pricing page A/B test",
        ])
        #expect(order(board, "todo") == ["t-65a1a1a1a1a1a1a1a1a1a107", "t-65a1a1a1a1a1a1a1a1a1a101"])
        #expect(order(board, "doing") == ["t-65a1a1a1a1a1a1a1a1a1a102", "t-65a1a1a1a1a1a1a1a1a1a103"])
        #expect(order(board, review) == ["t-65a1a1a1a1a1a1a1a1a1a104"])
        #expect(order(board, "done") == ["t-65a1a1a1a1a1a1a1a1a1a105"])

        let ci = try card(board, "Set up CI pipeline")
        #expect(ci.number == 2)
        #expect(ci.ref == "trello:aB3dE5fG")
        #expect(ci.due == Day("2026-02-15"))
        #expect(ci.description == "GitHub Actions:\n- build\n- test\n- deploy preview")
        #expect(ci.labels.map { board.label($0)!.name } == ["infra"])
        #expect(ci.assignees.isEmpty, "Trello members are not Corkboard users")
        // One checklist with a name of its own ("Steps"): its items carry the name, as with several checklists.
        #expect(ci.checklist.map(\.text) == ["Steps: Pick a CI provider", "Steps: Cache dependencies", "Steps: Deploy previews"])
        // The creation time is the one in Trello's id (0x65a1a1a1 seconds), not the import's.
        #expect(ci.createdAt == Timestamp(milliseconds: 0x65a1_a1a1 * 1000))
        #expect(board.cards.values.allSatisfy { $0.createdAt.milliseconds <= 0x65a1_a1a9 * 1000 })
        #expect(ci.checklist.map(\.done) == [true, false, false])
        #expect(ci.comments.map(\.text) == [
            "Ana Lima (2026-01-05): Started on this.", "Ana Lima (2026-01-07): Pipeline runs on every push now.",
        ])
        #expect(ci.comments.allSatisfy { $0.author == "alice" })

        // Two checklists: items are prefixed with their checklist's name, checklists in pos order.
        let copy = try card(board, "Write landing page copy")
        #expect(copy.checklist.map(\.text) == ["Draft: Hero headline", "Draft: Features section", "Review: Legal sign-off"])
        #expect(copy.checklist.map(\.done) == [true, true, false])
        #expect(Set(copy.labels.map { board.label($0)!.name }) == ["Design", "dark sky"])

        let login = try card(board, "Fix login, \"remember me\" bug")
        #expect(login.comments.map(\.text) == [
            "Ben Ortiz (2026-01-06): Repro steps:\n1. tick remember me\n2. close the browser\n3. session is gone",
        ])

        let launch = try card(board, "Launch announcement")
        #expect(launch.closed && !launch.archived)
        #expect(launch.due == Day("2026-01-10"))
        let old = try card(board, "Old style guide")
        #expect(old.archived && old.column == "done")
        let dark = try card(board, "Dark mode")
        #expect(dark.archived && dark.column == "todo")
        #expect(dark.comments.map(\.text) == ["cgray (2026-01-03): Parked until after launch."])
        #expect(try card(board, "Pricing page A/B test").archived)
        #expect(board.cards.values.filter(\.archived).count == 3)
        #expect(board.cards.values.filter(\.closed).count == 1)

        let s = plan.summary
        #expect(s.boardName == "Website relaunch")
        #expect((s.columnsCreated, s.columnsReused) == (1, 3))
        #expect((s.cards, s.labelsCreated, s.checklistItems, s.comments, s.archived, s.closed) == (9, 5, 6, 4, 3, 1))
        #expect(s.warnings == [
            "1 Trello due reminder was not imported: Corkboard reminds a card's assignees and watchers through their "
                + "inbox ahead of its due day by the board's lead time (a day unless set) and when it is overdue; "
                + "`cork board remind 24` matches Trello's 1440 minutes",
            "1 comment was skipped: on cards not in the export",
            "2 attachments were not imported: Corkboard cards have no attachments",
            "3 card members (of 2 Trello members) not assigned: Trello members are not Corkboard users; "
                + "assign people with card.assign",
        ])
        #expect(plan.ops.count == 1 + 5 + 9 + 6 + 4 + 1 + 3)
    }

    @Test func theSameImportGivesTheSameOps() throws {
        let board = Self.freshBoard().board
        let a = try TrelloImport(json: Self.fixture(), onto: board)
        let b = try TrelloImport(json: Self.fixture(), onto: board)
        #expect(a.ops == b.ops)
        #expect(a.summary == b.summary)
    }

    @Test func everyGeneratedIDIsWellFormed() throws {
        let plan = try TrelloImport(json: Self.fixture(), onto: Self.freshBoard().board)
        for op in plan.ops {
            switch op {
            case .addColumn(let id, _, _): #expect(id.isValid)
            case .createLabel(let id, _, _): #expect(id.isValid)
            case .addCard(let add): #expect(add.card.isValid)
            case .addChecklistItem(_, let id, _, _, _): #expect(id.isValid)
            case .addComment(_, let id, _): #expect(id.isValid)
            default: break
            }
        }
    }

    /// A second import plans nothing for the cards already on the board (same Trello ref): it does not send them,
    /// and says so in one line instead of warning, card by card, of a refusal that never comes.
    @Test func aSecondImportSkipsTheCardsAlreadyOnTheBoard() throws {
        var t = Self.freshBoard()
        let first = try TrelloImport(json: Self.fixture(), onto: t.board)
        Self.applyAll(first.ops, to: &t)
        let afterFirst = t.board

        let second = try TrelloImport(json: Self.fixture(), onto: afterFirst)
        #expect(!second.ops.contains { if case .addColumn = $0 { true } else { false } }, "columns are reused")
        #expect(!second.ops.contains { if case .createLabel = $0 { true } else { false } }, "labels are reused")
        #expect(second.ops.isEmpty, "\(second.ops.map(\.kind))")
        #expect(second.summary.cards == 0)
        #expect(Set(second.summary.existingCards) == Set(afterFirst.cards.keys))
        #expect(!second.summary.warnings.contains { $0.contains("duplicate_ref") }, "\(second.summary.warnings)")
        #expect(second.summary.warnings.contains("9 cards are already on the board (same Trello ref) and were skipped"))
    }

    @Test func importOntoABoardThatAlreadyUsesTheIDs() throws {
        var t = Self.freshBoard()
        t.apply(.addCard(AddCard(card: "t-65a1a1a1a1a1a1a1a1a1a101", title: "Squatter")))
        t.apply(.createLabel(label: "t-65a0e0e0e0e0e0e0e0e0e001", name: "Other", color: TrelloColor.grey))
        t.apply(.addColumn(column: "t-65a0d0d0d0d0d0d0d0d0d003", name: "QA", index: nil))
        t.apply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)))
        let plan = try TrelloImport(json: Self.fixture(), onto: t.board)
        #expect(plan.ops.contains(.addColumn(column: "t-65a0d0d0d0d0d0d0d0d0d003-2", name: "Review", index: 2)))
        #expect(plan.ops.contains { if case .addCard(let a) = $0 { a.card == "t-65a1a1a1a1a1a1a1a1a1a101-2" } else { false } })
        #expect(plan.summary.warnings.contains(
            "card \"Write landing page copy\" will be refused: DOING has a hard WIP limit of 1"))
        // Everything except the card past DOING's hard limit (and its parts) applies.
        let blocked: CardID = "t-65a1a1a1a1a1a1a1a1a1a103"
        Self.applyAll(plan.ops.filter { $0.card != blocked }, to: &t)
        #expect(t.board.cards.count == 1 + 8)
        #expect(t.board.label("t-65a0e0e0e0e0e0e0e0e0e001-2")?.name == "bug")
    }

    /// A small export with hostile and oversized values, built in the test.
    static func hostileExport() -> Data {
        let longTitle = String(repeating: "Title ", count: 50)
        let longDescription = String(repeating: "ü", count: 9_000)
        let longItem = String(repeating: "i", count: 250)
        let json: [String: Any] = [
            "name": "Hostile",
            "lists": [["id": "l1", "name": "  Inbox\n(new)  ", "closed": false, "pos": "7"]],
            "labels": [
                ["id": "x", "name": NSNull(), "color": "magenta"],
                ["id": "y", "name": "   ", "color": "lime_light"],
                ["id": "z", "name": "BUG", "color": "red"],
                ["id": "z2", "name": "bug", "color": "orange"],
            ],
            "cards": [
                [
                    "id": "weird id/with spaces", "name": longTitle, "desc": longDescription + "\u{1b}[31m",
                    "idList": "l1", "pos": 1, "due": "not a date", "idLabels": ["x", "y", "z", "z2", "nope"],
                    "shortLink": "ab cd",
                ],
                ["id": "c2", "name": "\u{7}\n  ", "idList": "l1", "pos": 2],
                ["id": "c3", "name": "Lost", "idList": "gone"],
            ],
            "checklists": [
                ["id": "k1", "idCard": "weird id/with spaces", "name": "Only", "checkItems": [
                    ["id": "i1", "name": longItem, "state": "complete"],
                    ["id": "i2", "name": "  ", "state": "incomplete"],
                ]],
            ],
            "actions": [
                ["id": "a1", "type": "commentCard", "date": "2026-01-02T00:00:00.000Z",
                 "data": ["text": String(repeating: "c", count: 9_000), "card": ["id": "c2"]],
                 "memberCreator": ["fullName": "Zoë", "username": "zoe"]],
                ["id": "a2", "type": "commentCard", "data": ["text": "no date, no author", "card": ["id": "c2"]]],
                ["id": "a3", "type": "commentCard", "data": ["text": "", "card": ["id": "c2"]]],
                ["type": "updateCard", "data": ["card": ["id": "c2"]]],
            ],
        ]
        return try! JSONSerialization.data(withJSONObject: json)
    }

    /// A single checklist with Trello's default name adds nothing to its items; an id that is not a Trello id leaves
    /// the creation time to the server, and one in the future is capped at the server's clock.
    @Test func aDefaultChecklistNameIsLeftOutAndOddIDsGetTheServersTime() throws {
        let json: [String: Any] = [
            "name": "B", "lists": [["id": "l1", "name": "Todo", "closed": false, "pos": 1]],
            "cards": [
                ["id": "5f0000000000000000000001", "name": "One", "idList": "l1", "pos": 1],
                ["id": "ff0000000000000000000002", "name": "Future", "idList": "l1", "pos": 2],
                ["id": "short", "name": "Odd", "idList": "l1", "pos": 3],
            ],
            "checklists": [
                ["id": "k1", "idCard": "5f0000000000000000000001", "name": "Checklist", "checkItems": [
                    ["id": "i1", "name": "first", "state": "complete"],
                ]],
                ["id": "k2", "idCard": "ff0000000000000000000002", "name": "Launch", "checkItems": [
                    ["id": "i2", "name": "second", "state": "incomplete"],
                ]],
            ],
        ]
        var t = Self.freshBoard()
        let plan = try TrelloImport(json: JSONSerialization.data(withJSONObject: json), onto: t.board)
        Self.applyAll(plan.ops, to: &t)
        let one = try card(t.board, "One"), future = try card(t.board, "Future"), odd = try card(t.board, "Odd")
        #expect(one.checklist.map(\.text) == ["first"])
        #expect(future.checklist.map(\.text) == ["Launch: second"])
        #expect(one.createdAt == Timestamp(milliseconds: 0x5f00_0000 * 1000))
        #expect(future.createdAt.milliseconds < 0xff00_0000 * 1000, "the applying board's clock")
        #expect(odd.createdAt > one.createdAt, "the applying board's clock")
    }

    @Test func hostileValuesAreMadeToFitAndStillApply() throws {
        var t = Self.freshBoard()
        let plan = try TrelloImport(json: Self.hostileExport(), onto: t.board)
        Self.applyAll(plan.ops, to: &t)
        let board = t.board
        #expect(board.columns.map(\.name) == ["Inbox (new)", "TODO", "DOING", "DONE"])
        #expect(board.labels.map(\.name) == ["magenta", "light lime", "BUG"])
        #expect(board.labels.map(\.color.description) == ["#b3bac5", "#b3f1d0", "#eb5a46"])

        let first = try #require(board.cards["t-weird-id-with-spaces"])
        #expect(first.title.count == Limits.titleMaxCharacters)
        #expect(first.title.hasSuffix("…"))
        #expect(first.description.utf8.count <= Limits.descriptionMaxBytes)
        #expect(first.description.hasSuffix("…"))
        #expect(first.due == nil)
        #expect(first.ref == "trello:abcd")
        #expect(first.labels.count == 3, "unknown label ids are dropped and bug/BUG merge")
        #expect(first.checklist.count == 1)
        #expect(first.checklist[0].text.count == Limits.checklistTextMaxCharacters)

        let second = try #require(board.cards["t-c2"])
        #expect(second.title == "Untitled card")
        #expect(second.ref == "trello:c2")
        #expect(second.comments.count == 2)
        #expect(second.comments[0].text.hasPrefix("Someone: no date, no author"))
        #expect(second.comments[1].text.hasPrefix("Zoë (2026-01-02): ccc"))
        #expect(second.comments[1].text.utf8.count <= Limits.commentMaxBytes)
        #expect(board.cards.count == 2)

        let w = plan.summary.warnings
        #expect(w.contains { $0.hasPrefix("the title of card") && $0.hasSuffix("was cut to 200 characters") })
        #expect(w.contains { $0.hasPrefix("the description of card") })
        #expect(w.contains { $0.contains("due date not a date was not understood") })
        #expect(w.contains("card \"Lost\" was skipped: its list gone is not in the export"))
        #expect(w.contains { $0.contains("1 checklist item was cut to 200 characters") })
        #expect(w.contains { $0.contains("a comment was cut to 8192 bytes") })
    }

    @Test func malformedExportsGiveANamedError() {
        func failure(_ text: String) -> TrelloImportError? {
            do {
                _ = try TrelloImport(json: Data(text.utf8), onto: Self.freshBoard().board)
                Issue.record("\(text) was accepted")
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("not json") == TrelloImportError(.notJSON, "the file is not valid JSON"))
        #expect(failure("") == TrelloImportError(.notJSON, "the file is not valid JSON"))
        #expect(failure("[1,2]") == TrelloImportError(.notTrello, "not a Trello board export: the file is not a JSON object"))
        #expect(failure(#"{"name":"x","cards":[]}"#)
            == TrelloImportError(.notTrello, "not a Trello board export: it has no \"lists\""))
        #expect(failure(#"{"lists":[],"cards":[{"id":"a","name":"A","idList":"l"},{"id":"b","name":"B"}]}"#)
            == TrelloImportError(.malformed, "cards[1].idList is missing"))
        #expect(failure(#"{"lists":[{"id":"l","name":7}],"cards":[]}"#)
            == TrelloImportError(.malformed, "lists[0].name should be a string"))
        #expect(failure(#"{"lists":[],"cards":[],"checklists":[{"id":"k","idCard":"c","checkItems":[{"id":"i","name":null}]}]}"#)
            == TrelloImportError(.malformed, "checklists[0].checkItems[0].name is null; it should be a string"))
        #expect(failure(#"{"lists":{},"cards":[]}"#) == TrelloImportError(.malformed, "lists should be an array"))
    }

    @Test func trelloColours() {
        #expect(TrelloColor.color(named: "green").description == "#61bd4f")
        #expect(TrelloColor.color(named: "black").description == "#344563")
        #expect(TrelloColor.color(named: "sky_dark").description == "#0098b7")
        #expect(TrelloColor.color(named: nil) == TrelloColor.grey)
        #expect(TrelloColor.color(named: "chartreuse") == TrelloColor.grey)
        for base in ["green", "yellow", "orange", "red", "purple", "blue", "sky", "lime", "pink", "black"] {
            for name in [base, base + "_dark", base + "_light"] { #expect(TrelloColor.hex[name] != nil, "\(name)") }
            #expect(TrelloColor.hex[base + "_dark"]!.luminance < TrelloColor.hex[base + "_light"]!.luminance)
        }
        #expect(TrelloColor.labelName(forColor: "green_dark") == "dark green")
        #expect(TrelloColor.labelName(forColor: "purple_light") == "light purple")
        #expect(TrelloColor.labelName(forColor: nil) == "grey")
    }

    private func card(_ board: Board, _ title: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Card {
        try #require(board.cards.values.first { $0.title == title }, sourceLocation: sourceLocation)
    }

    private func order(_ board: Board, _ column: ColumnID) -> [CardID] {
        board.cards(in: column).map(\.id)
    }
}
