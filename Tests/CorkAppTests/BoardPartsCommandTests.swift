import BoardCore
import BoardTesting
import BoardWire
import CorkApp
import Foundation
import Testing

/// The real `cork` binary against the real corkd: columns, milestones, checklists, boards and members,
/// the archive and purge, undo and redo, each with --json and its exit codes, and their history sentences.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct BoardPartsCommandTests {
    @Test func columnsAreAddedRenamedMovedLimitedAndRemoved() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let added = try await cork.json(["column", "add", "In review", "--at", "3"])
            let columns = try #require(added["columns"] as? [[String: Any]])
            #expect(columns.map { $0["id"] as? String } == ["todo", "doing", "in-review", "done"], "\(added)")
            #expect(added["board"] as? String == "main" && (added["seq"] as? Int ?? 0) >= 1)
            #expect(try await cork.ok(["column", "rename", "in-review", "Review"]).hasPrefix("renamed column In review → Review: "))
            let moved = try await cork.ok(["column", "move", "review", "1"])
            #expect(moved == "moved column Review: Review 0 | TODO 0 | DOING 0 | DONE 0\n", "\(moved)")

            // WIP limits: soft by default, hard refuses the add that passes it, --none clears.
            let soft = try await cork.json(["column", "wip", "Review", "2"])
            let review = try #require((soft["columns"] as? [[String: Any]])?.first)
            #expect((review["wip"] as? [String: Any])?["limit"] as? Int == 2 && (review["wip"] as? [String: Any])?["hard"] as? Bool == false)
            #expect(try await cork.ok(["column", "wip", "review", "1", "--hard"]).contains("Review 0/1 hard"))
            try await cork.ok(["add", "One", "--column", "review"])
            let refused = try await cork.fails(["add", "Two", "--column", "review"], with: 3)
            #expect(refused.contains("wip_limit:"), "\(refused)")
            // A soft limit lets a card in, and the line says the column is over it.
            try await cork.ok(["column", "wip", "review", "1"])
            let over = try await cork.ok(["add", "Two", "--column", "review"])
            #expect(over.hasSuffix("— Review (Review is over its WIP limit: 2/1)\n"), "\(over)")
            let number = over.split(separator: " ").first { $0.hasPrefix("#") }.map(String.init) ?? "?"
            // Moved within the column, it adds nothing to it: no note.
            let within = try await cork.ok(["move", number, "review", "--top"])
            #expect(within.hasSuffix("— Review\n"), "\(within)")
            try await cork.ok(["archive", number])
            #expect(try await cork.ok(["column", "wip", "review", "--none"]).hasPrefix("cleared the WIP limit of Review"))
            try await cork.fails(["column", "wip", "review", "3", "--hard", "--soft"], with: 2)
            try await cork.fails(["column", "wip", "review", "3", "--none"], with: 2)
            try await cork.fails(["column", "wip", "review"], with: 2)

            // Remove: a column with cards is refused (3), an unknown one is 5, an empty one goes.
            let notEmpty = try await cork.fails(["column", "remove", "review"], with: 3)
            #expect(notEmpty.contains("not_empty:"), "\(notEmpty)")
            try await cork.fails(["column", "rename", "nowhere", "X"], with: 5)
            try await cork.ok(["column", "add", "Later"])
            let removed = try await cork.json(["column", "remove", "later"])
            #expect((removed["columns"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Review", "TODO", "DOING", "DONE"])

            // A viewer may not change columns.
            let viewer = try await corkd.invite("carol", role: "viewer")
            try await Self.waitForMember("carol", cork)
            let forbidden = try await cork.fails(["column", "add", "Mine"], with: 3, url: .some(viewer.description))
            #expect(forbidden.contains("forbidden:"), "\(forbidden)")

            try await Self.expectHistory(of: cork, toSay: [
                "owner added column In review", "owner renamed column In review → Review",
                "owner moved column Review to position 1", "owner set the WIP limit of Review to 2 (soft)",
                "owner set the WIP limit of Review to 1 (hard)", "owner cleared the WIP limit of Review",
                "owner removed column Later",
            ])
        }
    }

    @Test func labelsAreListedAddedRecolouredRenamedAndRemoved() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Login fails", "--label", "bug"])
            let added = try await cork.json(["labels", "add", "Needs design", "--color", "purple"])
            let labels = try #require(added["labels"] as? [[String: Any]])
            #expect(labels.map { $0["name"] as? String } == ["bug", "Needs design"], "\(added)")
            #expect(labels.last?["color"] as? String == "#5319e7", "\(added)")
            #expect(try await cork.ok(["labels", "color", "BUG", "#00ff00"]) == "label bug is #00ff00 now\n")
            #expect(try await cork.ok(["labels", "rename", "needs design", "design"]) == "renamed label Needs design → design\n")
            let listed = try await cork.json(["labels"])
            let rows = try #require(listed["labels"] as? [[String: Any]])
            #expect(rows.map { "\($0["name"] ?? "") \($0["color"] ?? "") \($0["cards"] ?? "")" } == ["bug #00ff00 1", "design #5319e7 0"], "\(listed)")
            #expect(try await cork.ok(["labels", "list"]) == "bug #00ff00 · 1 card\ndesign #5319e7 · 0 cards\n")
            // Mistakes are usage errors or not found before anything is sent.
            let badColour = try await cork.fails(["labels", "color", "bug", "greenish"], with: 2)
            #expect(badColour.contains("greenish is not a colour: #RRGGBB, or one of"), "\(badColour)")
            let taken = try await cork.fails(["labels", "add", "BUG"], with: 2)
            #expect(taken.contains("has a label bug already"), "the existing label is named as it is: \(taken)")
            let clash = try await cork.fails(["labels", "rename", "design", "Bug"], with: 2)
            #expect(clash.contains("has a label bug already"), "a rename onto a name in use is refused as an add is: \(clash)")
            try await cork.fails(["labels", "remove", "nowhere"], with: 5)
            // Removing one takes it off its cards.
            let removed = try await cork.json(["labels", "remove", "bug"])
            #expect((removed["labels"] as? [[String: Any]])?.map { $0["name"] as? String } == ["design"])
            let shown = try await cork.ok(["show", "1"])
            #expect(!shown.contains("bug"), "\(shown)")
            try await Self.expectHistory(of: cork, toSay: [
                "owner created label Needs design (#5319e7)", "owner recoloured label bug #d73a4a → #00ff00",
                "owner renamed label Needs design → design", "owner deleted label bug",
            ])
        }
    }

    @Test func milestonesHaveProgressDueDatesAndAQuery() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let created = try await cork.json(["milestone", "create", "Beta launch", "--due", "2020-02-01"])
            let row = try #require(created["milestone"] as? [String: Any])
            #expect(row["milestone"] as? String == "beta-launch" && row["due"] as? String == "2020-02-01", "\(created)")
            #expect(row["overdue"] as? Bool == true && row["total"] as? Int == 0)
            try await cork.ok(["milestone", "create", "v2", "--due", "2999-01-01", "--desc", "later"])

            let first = try await cork.json(["add", "Ship it", "--milestone", "beta LAUNCH"])
            #expect((first["card"] as? [String: Any])?["milestone"] as? String == "beta-launch")
            try await cork.ok(["add", "Docs", "--milestone", "beta-launch"])
            try await cork.ok(["add", "Unplanned"])
            try await cork.ok(["close", "#1"])
            try await cork.fails(["add", "Nope", "--milestone", "v9"], with: 5)

            let list = try await cork.json(["milestone", "list"])
            let rows = try #require(list["milestones"] as? [[String: Any]])
            #expect(rows.map { $0["milestone"] as? String } == ["beta-launch", "v2"])
            #expect(rows[0]["done"] as? Int == 1 && rows[0]["total"] as? Int == 2 && rows[0]["overdue"] as? Bool == true)
            #expect(rows[1]["overdue"] as? Bool == false && rows[1]["description"] as? String == "later")
            let text = try await cork.ok(["milestone", "list"])
            #expect(text.contains("beta-launch  \"Beta launch\"  1/2 done  due 2020-02-01 OVERDUE"), "\(text)")
            #expect(text.contains("v2           \"v2\"  0/0 done  due 2999-01-01\n"), "\(text)")

            // The query language: milestone:NAME and no:milestone.
            let search = try await cork.json(["search", "milestone:\"Beta launch\""])
            #expect((search["cards"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1, 2], "\(search)")
            let none = try await cork.json(["search", "no:milestone"])
            #expect((none["cards"] as? [[String: Any]])?.map { $0["number"] as? Int } == [3] && none["query"] as? String == "milestone:none")
            try await cork.fails(["search", "no:colour"], with: 2)

            // edit --milestone / --no-milestone.
            let moved = try await cork.json(["edit", "#3", "--milestone", "v2"])
            #expect((moved["card"] as? [String: Any])?["milestone"] as? String == "v2")
            let cleared = try await cork.json(["edit", "#3", "--no-milestone"])
            #expect((cleared["card"] as? [String: Any])?["milestone"] == nil)
            try await cork.fails(["edit", "#3", "--milestone", "v2", "--no-milestone"], with: 2)
            // Without --json the line says what the edit changed, which the card's own line does not show.
            let said = try await cork.ok(["edit", "#3", "--milestone", "v2"])
            #expect(said.hasPrefix("added #3 ") && said.contains("to milestone \"v2\" — "), "\(said)")
            let unsaid = try await cork.ok(["edit", "#3", "--no-milestone"])
            #expect(unsaid.hasPrefix("removed #3 ") && unsaid.contains("from milestone \"v2\""), "\(unsaid)")

            // edit, close, reopen, delete.
            let edited = try await cork.json(["milestone", "edit", "beta-launch", "--title", "Beta", "--no-due"])
            #expect((edited["milestone"] as? [String: Any])?["title"] as? String == "Beta")
            #expect((edited["milestone"] as? [String: Any])?["due"] == nil)
            #expect(try await cork.ok(["milestone", "close", "Beta"]).contains("closed"))
            let closedAgain = try await cork.json(["milestone", "close", "beta"])
            #expect(closedAgain["noop"] as? Bool == true)
            try await cork.ok(["milestone", "reopen", "beta"])
            let deleted = try await cork.json(["milestone", "delete", "v2"])
            #expect((deleted["milestone"] as? [String: Any])?["milestone"] as? String == "v2")
            try await cork.fails(["milestone", "delete", "v2"], with: 5)
            try await cork.fails(["milestone", "edit", "beta"], with: 2)

            try await Self.expectHistory(of: cork, toSay: [
                "owner created milestone \"Beta launch\" due 2020-02-01", "owner added #3 \"Unplanned\" to milestone \"v2\"",
                "owner removed #3 \"Unplanned\" from milestone \"v2\"", "owner closed milestone \"Beta\"",
                "owner reopened milestone \"Beta\"", "owner deleted milestone \"v2\"",
            ])
        }
    }

    @Test func aChecklistIsAddedTickedUntickedAndRemoved() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Release"])
            for item in ["tag", "notes", "announce"] { try await cork.ok(["checklist", "#1", "add", item]) }
            let ticked = try await cork.ok(["checklist", "#1", "done", "2"])
            #expect(ticked == "ticked item 2 of #1: checklist 1/3\n  1. [ ] tag\n  2. [x] notes\n  3. [ ] announce\n", "\(ticked)")
            let json = try await cork.json(["checklist", "1", "done", "1"])
            let items = try #require((json["card"] as? [String: Any])?["checklist"] as? [[String: Any]])
            #expect(items.map { $0["done"] as? Bool } == [true, true, false])
            try await cork.ok(["checklist", "#1", "undo", "2"])
            try await cork.ok(["checklist", "#1", "remove", "3"])
            let list = try await cork.json(["checklist", "#1", "list"])
            #expect(list["done"] as? Int == 1 && list["total"] as? Int == 2 && list["number"] as? Int == 1, "\(list)")
            #expect((list["items"] as? [[String: Any]])?.map { $0["text"] as? String } == ["tag", "notes"])
            #expect(try await cork.ok(["checklist", "#1"]) == "#1 Release: checklist 1/2\n  1. [x] tag\n  2. [ ] notes\n")

            let missing = try await cork.fails(["checklist", "#1", "done", "7"], with: 5)
            #expect(missing.contains("no checklist item 7 on #1; it has items 1–2"), "\(missing)")
            try await cork.fails(["checklist", "#1", "done", "x"], with: 2)
            try await cork.fails(["checklist", "#1", "add"], with: 2)
            try await cork.fails(["checklist", "#9", "list"], with: 5)

            try await Self.expectHistory(of: cork, toSay: [
                "owner added \"tag\" to the checklist of #1", "owner checked off \"notes\" on #1",
                "owner unchecked \"notes\" on #1", "owner removed \"announce\" from the checklist of #1",
            ])
        }
    }

    @Test func boardsAreRenamedAndListedAndMembersManaged() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let renamed = try await cork.json(["board", "rename", "Team board"])
            #expect(renamed["name"] as? String == "Team board" && renamed["board"] as? String == "main", "\(renamed)")
            let list = try #require(try await cork.json(["board", "list"])["boards"] as? [[String: Any]])
            #expect(list.first?["name"] as? String == "Team board" && list.first?["role"] as? String == "owner")
            #expect((list.first?["seq"] as? Int ?? 0) >= 1, "the rename is a change")

            let bob = try await corkd.invite("bob", role: "viewer")
            try await Self.waitForMember("bob", cork)
            let added = try await cork.json(["member", "add", "@bob", "--role", "editor", "--name", "Bob B."])
            let members = try #require(added["members"] as? [[String: Any]])
            #expect(members.contains { $0["user"] as? String == "bob" && $0["role"] as? String == "editor" }, "\(added)")
            let table = try await cork.json(["board", "members"])
            let rows = try #require(table["members"] as? [[String: Any]])
            #expect(rows.first?["user"] as? String == "owner" && rows.first?["role"] as? String == "owner", "\(table)")
            #expect(rows.first { $0["user"] as? String == "bob" }?["name"] as? String == "Bob B.")
            #expect(rows.allSatisfy { $0["online"] as? Bool == false }, "one-shot commands are not online: \(table)")
            let text = try await cork.ok(["board", "members"])
            #expect(text.contains("bob  ") && text.contains("editor"), "\(text)")

            // bob, an editor, may not rename, archive the board or manage members; archiving asks for --yes.
            let forbidden = try await cork.fails(["board", "rename", "Mine"], with: 3, url: .some(bob.description))
            #expect(forbidden.contains("forbidden:"), "\(forbidden)")
            try await cork.fails(["board", "remind", "48"], with: 3, url: .some(bob.description))

            // The reminder lead time: hours, then back to the default; a value out of range is a usage error.
            let remind = try await cork.json(["board", "remind", "48"])
            #expect(remind["remind_hours"] as? Int == 48 && remind["remind_default"] == nil, "\(remind)")
            #expect(try await cork.ok(["board", "remind", "72h"]) == "board main reminds 72 h before a card's due day\n")
            let back = try await cork.json(["board", "remind", "default"])
            #expect(back["remind_hours"] == nil && back["remind_default"] as? Bool == true, "\(back)")
            try await cork.fails(["board", "remind", "721"], with: 2)
            // A negative number is refused as a value, not taken for an unknown option ("Missing expected argument").
            let negative = try await cork.fails(["board", "remind", "-1"], with: 2)
            #expect(negative.contains("not -1"), "\(negative)")
            let ended = try await cork.fails(["board", "remind", "--", "-1"], with: 2)
            #expect(ended.contains("not -1") && !ended.contains("--"), "\(ended)")
            try await cork.fails(["member", "add", "dave", "--role", "owner"], with: 3, url: .some(bob.description))
            let archive = try await cork.fails(["board", "archive", "--yes"], with: 3, url: .some(bob.description))
            #expect(archive.contains("forbidden:"), "\(archive)")
            try await cork.fails(["board", "archive"], with: 2)
            try await cork.fails(["member", "add", "dave", "--role", "boss"], with: 2)

            #expect(try await cork.ok(["member", "remove", "Bob B."]) == "removed bob from main\n")
            try await cork.fails(["member", "remove", "bob"], with: 5)
            try await cork.fails(["show"], with: 5, url: .some(bob.description))

            try await Self.expectHistory(of: cork, toSay: [
                "owner renamed the board \"Main\" → \"Team board\"", "owner changed bob's role viewer → editor",
                "owner removed bob from the board",
            ])
        }
    }

    /// The owner archives a board from cork: it is gone for everyone, the operator sees it archived and brings it back
    /// as it was.
    @Test func anOwnerArchivesABoardForEveryoneAndTheOperatorBringsItBack() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            _ = try await cork.json(["board", "create", "Side", "--id", "side"])
            _ = try await cork.ok(["add", "Keep me", "--board", "side"])

            let archived = try await cork.json(["board", "archive", "--board", "side", "--yes"])
            #expect(archived["board"] as? String == "side" && archived["archived"] as? Bool == true, "\(archived)")
            try await cork.fails(["show", "--board", "side"], with: 5)
            let again = try await cork.fails(["board", "archive", "--board", "side", "--yes"], with: 3)
            #expect(again.contains("not_found:"), "\(again)")
            let all = try await corkd.admin(["board", "list", "--all", "--json"])
            #expect(all.standardOutput.contains(#""archived":true,"board":"side""#), "\(all.standardOutput)")

            #expect(try await corkd.admin(["board", "unarchive", "side"]).exit.isSuccess)
            let shown = try await cork.ok(["show", "--board", "side"])
            #expect(shown.contains("#1 Keep me"), "\(shown)")
        }
    }

    @Test func archivedCardsAreListedAndSearchedAndPurgedOnlyWithYes() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Old login bug", "--label", "bug"])
            try await cork.ok(["add", "Old docs"])
            try await cork.ok(["add", "Live"])
            try await cork.ok(["archive", "#1"])
            try await cork.ok(["archive", "2"])
            #expect(try await cork.ok(["archive", "list"]) == "#1 Old login bug [bug] (archived) — TODO\n#2 Old docs (archived) — TODO\n")
            let bugs = try await cork.json(["archive", "list", "label:bug"])
            #expect((bugs["cards"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1], "\(bugs)")
            #expect(bugs["query"] as? String == "is:archived label:bug")
            #expect(try await cork.ok(["archive", "list", "nothing-like-this"]) == "no archived cards match\n")
            try await cork.fails(["archive", "list", "label:"], with: 2)

            let refused = try await cork.fails(["purge", "#2"], with: 2)
            #expect(refused.contains("add --yes"), "\(refused)")
            let bob = try await corkd.invite("bob", role: "editor")
            try await Self.waitForMember("bob", cork)
            let forbidden = try await cork.fails(["purge", "#2", "--yes"], with: 3, url: .some(bob.description))
            #expect(forbidden.contains("forbidden:"), "\(forbidden)")
            let purged = try await cork.json(["purge", "#2", "--yes"])
            #expect(purged["number"] as? Int == 2 && purged["title"] as? String == "Old docs", "\(purged)")
            try await cork.fails(["show", "#2"], with: 5)
            #expect(try await cork.ok(["archive", "list"]) == "#1 Old login bug [bug] (archived) — TODO\n")
            #expect(try await cork.ok(["history"]).contains("owner purged #2 \"Old docs\""))
        }
    }

    @Test func undoAndRedoTakeBackTheCallersOwnChanges() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let bob = try await corkd.invite("bob", role: "editor")
            try await Self.waitForMember("bob", cork)
            // Nothing of bob's yet.
            let nothing = try await cork.fails(["undo"], with: 5, url: .some(bob.description))
            #expect(nothing.contains("nothing of yours to undo"), "\(nothing)")
            try await cork.fails(["redo"], with: 5)

            let addSeq = try #require(try await cork.json(["add", "Ship corkd"])["seq"] as? Int)
            let moveSeq = try #require(try await cork.json(["move", "#1", "doing"])["seq"] as? Int)
            try await cork.ok(["say", "moved it"])
            // The chat is passed over: the move is undone.
            let undone = try await cork.json(["undo"])
            #expect(undone["action"] as? String == "undo" && undone["change"] as? String == "moved #1 \"Ship corkd\" TODO → DOING", "\(undone)")
            #expect((try await cork.json(["show", "#1"])["card"] as? [String: Any])?["column"] as? String == "todo")
            let redone = try await cork.ok(["redo"])
            #expect(redone.hasPrefix("redid seq \(undone["seq"] as? Int ?? -1): moved #1 \"Ship corkd\" TODO → DOING"), "\(redone)")
            #expect((try await cork.json(["show", "#1"])["card"] as? [String: Any])?["column"] as? String == "doing")
            try await cork.fails(["redo"], with: 5)
            // Undo twice walks back: the move, then the add (which archives the card).
            try await cork.ok(["undo"])
            let second = try await cork.ok(["undo"])
            #expect(second.hasPrefix("undid seq \(addSeq): added #1 \"Ship corkd\""), "\(second)")
            #expect((try await cork.json(["show", "#1"])["card"] as? [String: Any])?["archived"] as? Bool == true)
            try await cork.ok(["redo"])

            // Someone else changed the same field: undo_conflict, exit 3, and nothing changes.
            try await cork.ok(["close", "#1"])
            let reopened = try await cork.run(["reopen", "#1"], url: .some(bob.description))
            #expect(reopened.exit.isSuccess, "\(reopened.standardError)")
            let conflict = try await cork.fails(["undo"], with: 3)
            #expect(conflict.contains("could not undo seq") && conflict.contains("undo_conflict:"), "\(conflict)")
            // bob's change is bob's to undo; another user's seq is forbidden.
            let closeSeq = try #require(try await cork.json(["close", "#1"])["seq"] as? Int)
            let others = try await cork.fails(["undo", "--seq", "\(closeSeq)"], with: 3, url: .some(bob.description))
            #expect(others.contains("forbidden:"), "\(others)")
            // A purge has no inverse: not_undoable.
            try await cork.ok(["add", "Gone soon"])
            try await cork.ok(["purge", "#2", "--yes"])
            let purge = try await cork.fails(["undo"], with: 3)
            #expect(purge.contains("not_undoable:"), "\(purge)")

            let history = try await cork.ok(["history"])
            #expect(history.contains("owner moved #1 \"Ship corkd\" DOING → TODO (undo of seq \(moveSeq))"), "\(history)")
        }
    }

    /// Expects `cork history` to say each of `sentences` (the feed's words for the commands' changes).
    static func expectHistory(
        of cork: CorkProcess, toSay sentences: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let history = try await cork.ok(["history"], sourceLocation: sourceLocation)
        for sentence in sentences {
            #expect(history.contains(sentence), "\(sentence) in \(history)", sourceLocation: sourceLocation)
        }
    }

    /// Waits (bounded) until `corkd invite` has made `user` a member of main: the invite reaches the board
    /// asynchronously, and a one-shot command does not wait for its own membership.
    static func waitForMember(_ user: String, _ cork: CorkProcess) async throws {
        for _ in 0..<50 {
            let members = try await cork.json(["board", "members"])["members"] as? [[String: Any]] ?? []
            if members.contains(where: { $0["user"] as? String == user }) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestFailure("\(user) did not become a member of main")
    }
}
