import Testing

@testable import BoardCore

/// Board, member and column ops: the success path (fields, activity, inverse), no-ops and their rejections.
@Suite struct ReducerBoardTests {
    let board = Fixtures.board

    // MARK: board.rename

    @Test func renameBoardSetsTheNameAndRecordsIt() throws {
        let change = try accepted(.renameBoard(name: "Roadmap"), on: board)
        #expect(change.board.name == "Roadmap")
        #expect(change.board.seq == 11)
        #expect(!change.isNoop)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "board.rename",
                    changes: ["name": fc(.string("Main"), .string("Roadmap"))]))
        #expect(change.inverse == .renameBoard(name: "Main"))
        var expected = board
        expected.name = "Roadmap"
        expected.seq = 11
        #expect(change.board == expected, "nothing but the name and seq changes")
    }

    @Test func boardRemindSetsTheLeadTimeAndRecordsItAndOnlyAnOwnerMay() throws {
        let change = try accepted(.setRemindHours(hours: 48), on: board)
        #expect(change.board.remindHours == 48)
        #expect(change.activity.kind == "board.remind")
        #expect(change.activity.changes == ["remind_hours": fc(.null, .int(48))])
        #expect(change.inverse == .setRemindHours(hours: nil))
        let back = try accepted(.setRemindHours(hours: nil), on: change.board)
        #expect(back.board.remindHours == nil)
        #expect(back.activity.changes == ["remind_hours": fc(.int(48), .null)])
        expectNoop(.setRemindHours(hours: nil), on: board)
        #expect(rejectionCode(of: .setRemindHours(hours: 721), on: board) == .invalid)
        #expect(rejectionCode(of: .setRemindHours(hours: -1), on: board) == .invalid)
        #expect(rejectionCode(of: .setRemindHours(hours: 0), on: board, as: "bob") == .forbidden)
        #expect(rejectionCode(of: .setRemindHours(hours: 0), on: board, as: "ci") == .forbidden)
    }

    @Test func renameBoardToTheSameNameIsANoop() {
        expectNoop(.renameBoard(name: "Main"), on: board)
    }

    @Test func renameBoardRejections() {
        #expect(rejectionCode(of: .renameBoard(name: "  "), on: board) == .invalid)
        #expect(rejectionCode(of: .renameBoard(name: "a\tb"), on: board) == .invalid)
        #expect(rejectionCode(of: .renameBoard(name: String(repeating: "b", count: 81)), on: board) == .tooLarge)
        #expect(rejectionCode(of: .renameBoard(name: "Mine"), on: board, as: "bob") == .forbidden)
        #expect(rejectionCode(of: .renameBoard(name: "Mine"), on: board, as: "ci") == .forbidden)
        #expect(rejectionCode(of: .renameBoard(name: "Mine"), on: board, as: "vera") == .forbidden)
    }

    @Test func boardNameOfEightyCharactersIsAccepted() throws {
        let name = String(repeating: "b", count: 80)
        #expect(try accepted(.renameBoard(name: name), on: board).board.name == name)
    }

    // MARK: member.set / member.remove

    @Test func setMemberAddsAMember() throws {
        let change = try accepted(.setMember(user: "dan", role: .editor, name: "Dan"), on: board)
        #expect(change.board.members["dan"] == Member(id: "dan", role: .editor, name: "Dan"))
        #expect(change.board.members.count == 5)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "member.set", member: "dan",
                    changes: ["role": fc(.null, .string("editor")), "name": fc(.null, .string("Dan"))]))
        #expect(change.inverse == nil, "member changes cannot be undone")
    }

    @Test func setMemberChangesARoleAndKeepsTheDisplayName() throws {
        let change = try accepted(.setMember(user: "bob", role: .owner, name: nil), on: board)
        #expect(change.board.members["bob"] == Member(id: "bob", role: .owner, name: "Bob B."))
        #expect(change.activity.changes == ["role": fc(.string("editor"), .string("owner"))])
        #expect(change.activity.member == "bob")
    }

    @Test func setMemberWithTheSameRoleIsANoop() {
        expectNoop(.setMember(user: "bob", role: .editor, name: nil), on: board)
        expectNoop(.setMember(user: "bob", role: .editor, name: "Bob B."), on: board)
    }

    @Test func demotingOneOfTwoOwnersIsAllowed() throws {
        var board = board
        mustApply(.setMember(user: "bob", role: .owner, name: nil), to: &board)
        let change = try accepted(.setMember(user: "alice", role: .editor, name: nil), on: board, as: "bob")
        #expect(change.board.members["alice"]?.role == .editor)
        #expect(change.board.members["bob"]?.role == .owner)
    }

    @Test func setMemberRejections() {
        #expect(rejectionCode(of: .setMember(user: "alice", role: .editor, name: nil), on: board) == .invalid,
                "the last owner cannot step down")
        #expect(rejectionCode(of: .setMember(user: "bad id", role: .editor, name: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .setMember(user: "", role: .editor, name: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .setMember(user: "dan", role: .editor, name: "D\u{0}"), on: board) == .invalid)
        #expect(
            rejectionCode(of: .setMember(user: "dan", role: .editor, name: String(repeating: "d", count: 81)), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .setMember(user: "dan", role: .editor, name: nil), on: board, as: "bob") == .forbidden)
        #expect(rejectionCode(of: .setMember(user: "dan", role: .bot, name: nil), on: board, as: "ci") == .forbidden)
        #expect(rejectionCode(of: .setMember(user: "vera", role: .owner, name: nil), on: board, as: "vera") == .forbidden)
    }

    @Test func removeMemberDropsTheirAssignments() throws {
        let change = try accepted(.removeMember(user: "bob"), on: board)
        #expect(change.board.members["bob"] == nil)
        #expect(change.board.cards["c2"]?.assignees == [])
        #expect(change.board.cards["c1"]?.assignees == ["alice"], "other assignments stay")
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "member.remove", member: "bob",
                    changes: ["role": fc(.string("editor"), .null), "name": fc(.string("Bob B."), .null)]))
        #expect(change.inverse == nil)
    }

    @Test func removeMemberRejections() {
        #expect(rejectionCode(of: .removeMember(user: "alice"), on: board) == .invalid, "last owner")
        #expect(rejectionCode(of: .removeMember(user: "zed"), on: board) == .notFound)
        #expect(rejectionCode(of: .removeMember(user: "vera"), on: board, as: "bob") == .forbidden)
        #expect(rejectionCode(of: .removeMember(user: "vera"), on: board, as: "ci") == .forbidden)
    }

    // MARK: column.add

    @Test func addColumnAtAnIndex() throws {
        let change = try accepted(.addColumn(column: "qa", name: "QA", index: 2), on: board, as: "bob")
        #expect(change.board.columns.map(\.id) == ["todo", "doing", "qa", "done"])
        #expect(change.board.column("qa") == Column(id: "qa", name: "QA"))
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "column.add", column: "qa",
                    changes: ["name": fc(.null, .string("QA")), "index": fc(.null, .int(2))]))
        #expect(change.inverse == .removeColumn(column: "qa"))
    }

    @Test func addColumnDefaultsToTheRightEndAndClampsTheIndex() throws {
        #expect(try accepted(.addColumn(column: "qa", name: "QA", index: nil), on: board).board.columns.last?.id == "qa")
        let clamped = try accepted(.addColumn(column: "qa", name: "QA", index: 50), on: board)
        #expect(clamped.board.columns.map(\.id) == ["todo", "doing", "done", "qa"])
        #expect(clamped.activity.changes["index"] == fc(.null, .int(3)))
    }

    @Test func addColumnRejections() {
        #expect(rejectionCode(of: .addColumn(column: "todo", name: "Later", index: nil), on: board) == .duplicateID)
        #expect(rejectionCode(of: .addColumn(column: "qa", name: "doing", index: nil), on: board) == .invalid,
                "column names are unique, ignoring case")
        #expect(rejectionCode(of: .addColumn(column: "q a", name: "QA", index: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .addColumn(column: "qa", name: "", index: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .addColumn(column: "qa", name: "QA", index: -1), on: board) == .invalid)
        #expect(
            rejectionCode(of: .addColumn(column: "qa", name: String(repeating: "q", count: 41), index: nil), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .addColumn(column: "qa", name: "QA", index: nil), on: board, as: "ci") == .forbidden)
        #expect(rejectionCode(of: .addColumn(column: "qa", name: "QA", index: nil), on: board, as: "vera") == .forbidden)
    }

    @Test func aBoardHoldsAtMostTwentyColumns() {
        var board = board
        for i in 4...Limits.columnsMax {
            mustApply(.addColumn(column: ColumnID("k\(i)"), name: "K\(i)", index: nil), to: &board)
        }
        #expect(board.columns.count == Limits.columnsMax)
        #expect(rejectionCode(of: .addColumn(column: "one-more", name: "One more", index: nil), on: board) == .tooLarge)
    }

    // MARK: column.rename

    @Test func renameColumn() throws {
        let change = try accepted(.renameColumn(column: "doing", name: "In progress"), on: board, as: "bob")
        #expect(change.board.column("doing")?.name == "In progress")
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "column.rename", column: "doing",
                    changes: ["name": fc(.string("DOING"), .string("In progress"))]))
        #expect(change.inverse == .renameColumn(column: "doing", name: "DOING"))
    }

    @Test func renameColumnChangingOnlyItsCaseIsAllowed() throws {
        let change = try accepted(.renameColumn(column: "doing", name: "Doing"), on: board)
        #expect(change.board.column("doing")?.name == "Doing")
    }

    @Test func renameColumnRejections() {
        #expect(rejectionCode(of: .renameColumn(column: "nope", name: "X"), on: board) == .notFound)
        #expect(rejectionCode(of: .renameColumn(column: "doing", name: "done"), on: board) == .invalid)
        #expect(rejectionCode(of: .renameColumn(column: "doing", name: "a\nb"), on: board) == .invalid)
        #expect(rejectionCode(of: .renameColumn(column: "doing", name: "X"), on: board, as: "ci") == .forbidden)
        expectNoop(.renameColumn(column: "doing", name: "DOING"), on: board)
    }

    // MARK: column.move

    @Test func moveColumn() throws {
        let change = try accepted(.moveColumn(column: "todo", index: 2), on: board)
        #expect(change.board.columns.map(\.id) == ["doing", "done", "todo"])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "column.move", column: "todo",
                    changes: ["index": fc(.int(0), .int(2))]))
        #expect(change.inverse == .moveColumn(column: "todo", index: 0))
    }

    @Test func moveColumnClampsItsIndex() throws {
        let change = try accepted(.moveColumn(column: "doing", index: 99), on: board)
        #expect(change.board.columns.map(\.id) == ["todo", "done", "doing"])
        #expect(change.activity.changes["index"] == fc(.int(1), .int(2)))
        expectNoop(.moveColumn(column: "done", index: 99), on: board)
        expectNoop(.moveColumn(column: "doing", index: 1), on: board)
    }

    @Test func moveColumnRejections() {
        #expect(rejectionCode(of: .moveColumn(column: "doing", index: -1), on: board) == .invalid)
        #expect(rejectionCode(of: .moveColumn(column: "nope", index: 0), on: board) == .notFound)
        #expect(rejectionCode(of: .moveColumn(column: "doing", index: 0), on: board, as: "ci") == .forbidden)
    }

    // MARK: column.remove

    @Test func removeAnEmptyColumn() throws {
        var board = board
        mustApply(.addColumn(column: "qa", name: "QA", index: 1), to: &board)
        let change = try accepted(.removeColumn(column: "qa"), on: board, as: "bob")
        #expect(change.board.columns.map(\.id) == ["todo", "doing", "done"])
        #expect(
            change.activity
                == Activity(
                    seq: 12, at: stamp(12), actor: "bob", kind: "column.remove", column: "qa",
                    changes: ["name": fc(.string("QA"), .null), "index": fc(.int(1), .null)]))
        #expect(change.inverse == nil)
    }

    @Test func removeColumnRejections() {
        #expect(rejectionCode(of: .removeColumn(column: "doing"), on: board) == .notEmpty)
        #expect(rejectionCode(of: .removeColumn(column: "nope"), on: board) == .notFound)
        #expect(rejectionCode(of: .removeColumn(column: "doing"), on: board, as: "ci") == .forbidden)
    }

    @Test func aColumnHoldingOnlyArchivedCardsIsNotEmpty() {
        var board = board
        mustApply(.archiveCard(card: "c4"), to: &board)
        #expect(board.count(in: "doing") == 0)
        #expect(rejectionCode(of: .removeColumn(column: "doing"), on: board) == .notEmpty)
        mustApply(.purgeCard(card: "c4"), to: &board)
        mustApply(.removeColumn(column: "doing"), to: &board)
        #expect(board.column("doing") == nil)
    }

    @Test func theLastColumnCannotBeRemoved() {
        var board = Board(id: "solo", name: "Solo", owner: "alice", columns: [Column(id: "only", name: "Only")])
        #expect(rejectionCode(of: .removeColumn(column: "only"), on: board) == .invalid)
        board.columns.append(Column(id: "two", name: "Two"))
        mustApply(.removeColumn(column: "only"), to: &board)
        #expect(board.columns.map(\.id) == ["two"])
    }

    // MARK: column.wip

    @Test func setAHardWIPLimit() throws {
        let change = try accepted(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: true)), on: board)
        #expect(change.board.column("doing")?.wip == WIPLimit(limit: 2, hard: true))
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "column.wip", column: "doing",
                    changes: ["wip_limit": fc(.null, .int(2)), "wip_hard": fc(.null, .bool(true))]))
        #expect(change.inverse == .setWIPLimit(column: "doing", limit: nil))
    }

    @Test func changeAndClearAWIPLimit() throws {
        var board = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: true)), to: &board)
        let soft = try accepted(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 3, hard: false)), on: board)
        #expect(soft.activity.changes == ["wip_limit": fc(.int(2), .int(3)), "wip_hard": fc(.bool(true), .bool(false))])
        #expect(soft.inverse == .setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: true)))
        let cleared = try accepted(.setWIPLimit(column: "doing", limit: nil), on: board)
        #expect(cleared.board.column("doing")?.wip == nil)
        #expect(cleared.activity.changes == ["wip_limit": fc(.int(2), .null), "wip_hard": fc(.bool(true), .null)])
        expectNoop(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: true)), on: board)
    }

    @Test func wipLimitRejections() {
        #expect(rejectionCode(of: .setWIPLimit(column: "doing", limit: WIPLimit(limit: 0, hard: true)), on: board) == .invalid)
        #expect(
            rejectionCode(of: .setWIPLimit(column: "doing", limit: WIPLimit(limit: 1001, hard: false)), on: board)
                == .invalid)
        #expect(rejectionCode(of: .setWIPLimit(column: "nope", limit: nil), on: board) == .notFound)
        #expect(rejectionCode(of: .setWIPLimit(column: "doing", limit: nil), on: board, as: "ci") == .forbidden)
        #expect(rejectionCode(of: .setWIPLimit(column: "doing", limit: nil), on: board, as: "vera") == .forbidden)
    }

    // MARK: chat

    @Test func chatIsAnActivityWithoutABoardChange() throws {
        let change = try accepted(.chat(text: "hello\nall"), on: board, as: "vera")
        #expect(!change.isNoop, "chat consumes a seq")
        #expect(change.board.seq == 11)
        var expected = board
        expected.seq = 11
        #expect(change.board == expected)
        #expect(
            change.activity
                == Activity(seq: 11, at: stamp(11), actor: "vera", kind: "chat", text: "hello\nall", changes: [:]))
        #expect(change.inverse == nil)
    }

    @Test func chatRejections() {
        #expect(rejectionCode(of: .chat(text: " \n "), on: board) == .invalid)
        #expect(rejectionCode(of: .chat(text: "beep\u{7}"), on: board) == .invalid)
        #expect(rejectionCode(of: .chat(text: String(repeating: "x", count: Limits.chatMaxBytes + 1)), on: board) == .tooLarge)
    }
}
