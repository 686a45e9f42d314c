import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// `/add TITLE --due … --label …`: the options of the one-shot `cork add`, typed in the input line.
extension TUIModelTests {
    /// The card `effects` add (the last effect), or nil.
    static func addedCard(_ effects: [TUIEffect]) -> AddCard? {
        guard case .submit(.addCard(let add))? = effects.last else { return nil }
        return add
    }

    @Test func slashAddTakesTheOptionsOfCorkAdd() throws {
        var t = Self.testBoard()
        t.apply(.createMilestone(milestone: "v1", title: "v1.0", description: nil, due: nil))
        var model = Self.model()
        model.board = t.board
        let effects = Self.enter("/add Fix the build --due 2026-12-01 --label bug --label ci", into: &model)
        let add = try #require(Self.addedCard(effects), "\(effects) \(model.notice ?? "")")
        #expect(add.title == "Fix the build")
        #expect(add.column == "todo")
        #expect(add.due == Day(year: 2026, month: 12, day: 1))
        // ci is new: created first, as `cork add` does.
        #expect(effects.count == 2)
        guard case .submit(.createLabel(let ci, let name, _))? = effects.first else {
            Issue.record("\(effects)")
            return
        }
        #expect(name == "ci" && add.labels == ["bug", ci])

        // Every option of `cork add`, in any order, with quotes around a value that has spaces; --opt=value too.
        let all = Self.enter(
            "/add --column DOING Ship it --assign bob --desc \"all of it, today\" --ref=GH-7 --milestone v1.0 now",
            into: &model)
        let ship = try #require(Self.addedCard(all), "\(all) \(model.notice ?? "")")
        #expect(ship.title == "Ship it now")
        #expect(ship.column == "doing" && ship.assignees == ["bob"] && ship.description == "all of it, today")
        #expect(ship.ref == "GH-7" && ship.milestone == "v1")

        // --description is --desc's long spelling, as for `cork add`.
        let described = try #require(Self.addedCard(Self.enter("/add Write notes --description \"for 0.3\"", into: &model)))
        #expect(described.title == "Write notes" && described.description == "for 0.3")

        // After --, everything is the title, dashes and all.
        let dashed = try #require(Self.addedCard(Self.enter("/add -- --force is \"broken\" --label x", into: &model)))
        #expect(dashed.title == "--force is \"broken\" --label x" && dashed.labels.isEmpty)
        // A ref another card has selects that card, as `cork add --ref` prints it, and adds nothing.
        t.apply(.addCard(AddCard(card: "k9", column: "done", title: "From CI", ref: "ci:1207")))
        model.board = t.board
        #expect(Self.enter("/add From CI again --ref ci:1207", into: &model) == [.presence(.viewing, card: "k9")])
        #expect(model.notice == "#4 already has ref ci:1207" && model.selectedCard?.id == "k9")
        // Quotes in a title are the title's.
        let quoted = try #require(Self.addedCard(Self.enter("/add Rename \"Done\" to \"Shipped\"", into: &model)))
        #expect(quoted.title == "Rename \"Done\" to \"Shipped\"")
        // A title typed in quotes, as on a shell, is the words inside them; after `--` it is kept as typed.
        let shell = try #require(Self.addedCard(Self.enter("/add \"Deploy to prod: EU\" --label ops", into: &model)))
        #expect(shell.title == "Deploy to prod: EU" && shell.labels.count == 1, "\(shell.title)")
        let kept = try #require(Self.addedCard(Self.enter("/add -- \"Hello\"", into: &model)))
        #expect(kept.title == "\"Hello\"")
        // A due date counted from today (2026-03-10, a Tuesday), as /due takes it too.
        #expect(try #require(Self.addedCard(Self.enter("/add Soon --due tomorrow", into: &model))).due == Day(year: 2026, month: 3, day: 11))
        #expect(Self.enter("/due #1 fri", into: &model).last == .submit(.editCard(EditCard(card: "k1", due: .set(Day(year: 2026, month: 3, day: 13)!)))))
        // /edit the same way, based on the title shown (edited offline, or racing a rename, it is refused as a
        // conflict rather than replacing the other person's title unseen).
        #expect(Self.enter("/edit #1 \"Fix: the login\"", into: &model).last
            == .submit(.editCard(EditCard(card: "k1", title: "Fix: the login", baseTitle: "Fix login"))))
        #expect(Self.enter("/edit #1 Rename \"Done\"", into: &model).last
            == .submit(.editCard(EditCard(card: "k1", title: "Rename \"Done\"", baseTitle: "Fix login"))))
    }

    @Test(arguments: [
        ("/add Fix --priority high", "unknown option --priority"),
        ("/add Fix --due", "--due needs a value"),
        ("/add Fix --due someday", "\"someday\" is not a date; write YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri)"),
        ("/add --label bug", "/add TITLE"),
        ("/add Fix --column nowhere", "nowhere"),
        ("/add Fix --desc \"unclosed", "unclosed quote"),
    ])
    func slashAddSaysWhatIsWrongAndSendsNothing(line: String, message: String) {
        var model = Self.model()
        #expect(Self.enter(line, into: &model).isEmpty)
        #expect(model.notice?.contains(message) == true, "\(model.notice ?? "no notice")")
        #expect(model.selectWhenShown == nil)
        // Whole in the feed too: an 80-column status line cuts a reason with its usage.
        #expect(model.feed.last?.text == model.notice, "\(model.feed.last?.text ?? "no feed line")")
        #expect(model.feed.last?.kind == .error)
    }

    @Test func slashAddShowsTheRoomLeftInTheTitleNearTheLimit() {
        var model = Self.model(width: 120)
        let title = String(repeating: "x", count: 195)
        model.focus = .input
        Self.type("/add \(title) --label bug --due 2026-12-01", into: &model)
        // The counter counts the title, not the options.
        #expect(model.inputCounter?.text == "5 left", "\(String(describing: model.inputCounter))")
        #expect(model.render().lines[model.height - 1].hasSuffix("5 left"))
        model.input = LineEditor("/add \(title)yyyyyyy --label bug")
        #expect(model.inputCounter?.text == "2 over")
        // Enter keeps the over-long line, and says by how much.
        #expect(model.update(Self.key(.enter)).isEmpty)
        #expect(model.notice == "the title is 202 characters, at most 200: 2 too many")
        #expect(model.input.text.hasPrefix("/add "))
        // Far from the limit, no counter.
        model.input = LineEditor("/add short --label bug")
        #expect(model.inputCounter == nil)
        // /edit counts its title and /comment its text (in bytes), without the card named first.
        model.input = LineEditor("/edit #1 " + String(repeating: "z", count: 199))
        #expect(model.inputCounter?.text == "1 left")
        model.input = LineEditor("/comment #1 " + String(repeating: "é", count: model.limits.commentMaxBytes / 2 + 1))
        #expect(model.inputCounter?.text == "2 over")
    }
}
