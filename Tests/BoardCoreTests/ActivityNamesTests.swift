import Foundation
import Testing

@testable import BoardCore

/// Each activity record carries the names of what it mentions as they were at the change, so history read later
/// tells it with the names of its time.
@Suite struct ActivityNamesTests {
    private func names(_ op: Op, as actor: UserID = "alice", on board: Board = Fixtures.board) throws -> ActivityNames? {
        let change = try apply(op, to: board, context: ctx(actor, on: board)).get()
        return change.activity.names
    }

    @Test func cardRecordsCarryTheTitleNumberAndColumns() throws {
        let move = try names(.moveCard(card: "c1", column: "doing", placement: .bottom))
        #expect(move == ActivityNames(title: "Fix login", number: 1, columns: ["todo": "TODO", "doing": "DOING"]))
        let reorder = try names(.moveCard(card: "c2", column: "todo", placement: .top))
        #expect(reorder == ActivityNames(title: "Design settings", number: 2, columns: ["todo": "TODO"]))
        // A rename carries the new title (the old one is in `changes`).
        let rename = try names(.editCard(EditCard(card: "c1", title: "Fix the login")))
        #expect(rename?.title == "Fix the login")
        let label = try names(.addLabel(card: "c2", label: "ui"))
        #expect(label == ActivityNames(title: "Design settings", number: 2, columns: ["todo": "TODO"], labels: ["ui": "UI"]))
        let milestone = try names(.editCard(EditCard(card: "c2", milestone: .set("m1"))))
        #expect(milestone?.milestones == ["m1": "v1.0"])
        let item = try names(.editChecklistItem(card: "c3", item: "i1", text: nil, done: true))
        #expect(item?.item == "Draft" && item?.title == "Write docs")
    }

    @Test func whatTheChangeRemovedIsNamedAsItWasBefore() throws {
        let purge = try names(.purgeCard(card: "c5"))
        #expect(purge == ActivityNames(title: "Old crash", number: 5, columns: ["done": "DONE"], milestones: ["m1": "v1.0"]))
        let removed = try names(.removeChecklistItem(card: "c3", item: "i2"))
        #expect(removed?.item == "Review")
        let label = try names(.deleteLabel(label: "docs"))
        #expect(label?.labels == ["docs": "Docs"])
        var board = Fixtures.board
        board.columns.append(Column(id: "qa", name: "QA"))
        let column = try names(.removeColumn(column: "qa"), on: board)
        #expect(column?.columns == ["qa": "QA"])
    }

    @Test func chatAndBoardRecordsCarryNoNames() throws {
        #expect(try names(.chat(text: "hi")) == nil)
        #expect(try names(.renameBoard(name: "Roadmap")) == nil)
        #expect(try names(.setMember(user: "dave", role: .editor, name: nil)) == nil)
    }

    @Test func anUndoCarriesTheNamesOfItsOwnTime() throws {
        let board = Fixtures.board
        let move = try apply(.moveCard(card: "c1", column: "doing", placement: .bottom), to: board, context: ctx("alice", on: board)).get()
        var renamed = move.board
        _ = renamed.apply(.renameColumn(column: "doing", name: "NOW"), context: ctx("alice", on: renamed))
        let undo = try renamed.applyingUndo(of: move.activity, inverse: move.inverse, context: ctx("alice", on: renamed)).get()
        #expect(undo.activity.names?.columns == ["todo": "TODO", "doing": "NOW"])
    }

    @Test func namesTravelAsAnOptionalObjectAndOldRecordsWithoutThemDecode() throws {
        let move = try apply(.moveCard(card: "c1", column: "doing", placement: .bottom), to: Fixtures.board, context: ctx(seq: 11)).get()
        let json = try JSONEncoder().encode(move.activity)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        let names = object?["names"] as? [String: Any]
        #expect(names?["title"] as? String == "Fix login")
        #expect(names?["number"] as? Int == 1)
        #expect(names?["columns"] as? [String: String] == ["todo": "TODO", "doing": "DOING"])
        #expect(try JSONDecoder().decode(Activity.self, from: json) == move.activity)
        let old = #"{"seq":3,"at":0,"actor":"alice","kind":"card.close","card":"c1","changes":{"closed":[false,true]}}"#
        #expect(try JSONDecoder().decode(Activity.self, from: Data(old.utf8)).names == nil)
    }
}
