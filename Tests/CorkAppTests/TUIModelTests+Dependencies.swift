import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The input-line commands for dependencies, recurring and watched cards: `/block`, `/unblock`, `/force`, `/recur`,
/// `/follow`, `/unfollow` and `/column progress`, and what the card detail says of them.
extension TUIModelTests {
    /// `text` entered in `model`: its effects, and the notice it left (the model is left as the command left it).
    static func entered(_ text: String, into model: inout TUIModel) -> (effects: [TUIEffect], notice: String?) {
        model.notice = nil
        let effects = enter(text, into: &model)
        return (effects, model.notice)
    }

    @Test func blockAndUnblockTakeTheSelectedCardOrANamedOne() throws {
        var t = Self.testBoard()
        var model = Self.model()
        try #require(model.selectedCard?.id == "k1")
        // OTHER alone: the selected card waits for it.
        #expect(Self.enter("/block #2", into: &model) == [.submit(.blockCard(card: "k1", by: "k2"))])
        // CARD and OTHER, as #N or N.
        #expect(Self.enter("/block #3 #1", into: &model) == [.submit(.blockCard(card: "k3", by: "k1"))])
        #expect(Self.enter("/block 2 3", into: &model) == [.submit(.blockCard(card: "k2", by: "k3"))])
        // Unblock takes back what the card waits for; a dependency it does not have is said, and sends nothing.
        let notWaiting = Self.entered("/unblock #2", into: &model)
        #expect(notWaiting.effects.isEmpty)
        #expect(notWaiting.notice == "#1 does not wait for #2")
        t.apply(.blockCard(card: "k1", by: "k2"))
        _ = model.update(Self.loaded(t.board))
        #expect(Self.enter("/unblock #2", into: &model) == [.submit(.unblockCard(card: "k1", by: "k2"))])
        #expect(Self.enter("/unblock #1 2", into: &model) == [.submit(.unblockCard(card: "k1", by: "k2"))])
        // An archived card blocks nothing: refused, not sent.
        t.apply(.archiveCard(card: "k3"))
        _ = model.update(Self.loaded(t.board))
        let archived = Self.entered("/block #1 #3", into: &model)
        #expect(archived.effects.isEmpty)
        #expect(archived.notice?.hasPrefix("#3 is archived") == true, "\(archived.notice ?? "")")
    }

    @Test(arguments: [
        ("/block", "/block [CARD] OTHER"),
        ("/block #1 #2 #3", "/block [CARD] OTHER"),
        ("/unblock", "/unblock [CARD] OTHER"),
        ("/block #1", "#1 cannot wait for itself"),
        ("/block #9", "no card #9"),
        ("/block #9 #1", "no card #9"),
        ("/unblock #1 #x", "not a card number"),
    ])
    func aBadBlockSaysHowAndSendsNothing(line: String, notice: String) {
        var model = Self.model()
        let (effects, said) = Self.entered(line, into: &model)
        #expect(effects.isEmpty, "\(line)")
        #expect(said?.contains(notice) == true, "\(line): \(said ?? "no notice")")
    }

    @Test func withNoCardSelectedBlockAndFollowAskForOne() throws {
        var model = Self.model()
        _ = model.update(Self.key(.character("k")))
        try #require(model.onHeader && model.selectedCard == nil)
        for line in ["/block #2", "/follow", "/recur day"] {
            let (effects, notice) = Self.entered(line, into: &model)
            #expect(effects.isEmpty, "\(line)")
            #expect(notice == "select a card first, or name it (#12)", "\(line)")
        }
        // A named card needs no selection.
        #expect(Self.enter("/block #1 #2", into: &model) == [.submit(.blockCard(card: "k1", by: "k2"))])
        #expect(Self.enter("/follow #2", into: &model) == [.submit(.watchCard(card: "k2"))])
    }

    @Test(arguments: [
        ("/recur day", "k1", Recurrence(every: .day)),
        ("/recur weekday", "k1", Recurrence(every: .weekday)),
        ("/recur week mon,thu", "k1", Recurrence(every: .week, days: ["mon", "thu"])),
        ("/recur #2 week mon thu", "k2", Recurrence(every: .week, days: ["mon", "thu"])),
        ("/recur 2 week Monday,Friday", "k2", Recurrence(every: .week, days: ["mon", "fri"])),
        // Each day once, in the week's order.
        ("/recur week thu,Mon,mon", "k1", Recurrence(every: .week, days: ["mon", "thu"])),
        ("/recur every month 15", "k1", Recurrence(every: .month, day: 15)),
        ("/recur #3 after 3", "k3", Recurrence(afterDoneDays: 3)),
        ("/recur after 10 days", "k1", Recurrence(afterDoneDays: 10)),
        ("/recur #2 off", "k2", nil),
    ] as [(String, CardID, Recurrence?)])
    func recurSetsTheRuleOfTheSelectedOrNamedCard(line: String, card: CardID, rule: Recurrence?) {
        var t = Self.testBoard()
        var model = Self.model()
        let effects = Self.enter(line, into: &model)
        #expect(effects == [.submit(.setRecurrence(card: card, recurrence: rule))], "\(line)")
        // The server takes it.
        t.apply(.setRecurrence(card: card, recurrence: rule))
        #expect(t.board.cards[card]?.recur == rule)
    }

    @Test(arguments: [
        ("/recur", "/recur [CARD] day|weekday|week mon,thu|month N|after N|off"),
        ("/recur #2", "/recur [CARD] day|weekday|week mon,thu|month N|after N|off"),
        ("/recur fortnightly", "/recur [CARD] day|weekday|week mon,thu|month N|after N|off"),
        ("/recur day 2", "/recur [CARD] day|weekday|week mon,thu|month N|after N|off"),
        ("/recur off now", "/recur [CARD] day|weekday|week mon,thu|month N|after N|off"),
        ("/recur week", "/recur [CARD] week DAYS"),
        ("/recur week mon,someday", "/recur [CARD] week DAYS"),
        ("/recur month", "/recur [CARD] month N"),
        ("/recur month 32", "/recur [CARD] month N"),
        ("/recur month first", "/recur [CARD] month N"),
        ("/recur after 0", "/recur [CARD] after N"),
        ("/recur after 400", "/recur [CARD] after N"),
        ("/recur after soon", "/recur [CARD] after N"),
    ])
    func aBadRuleGivesTheUsageAndSendsNothing(line: String, usage: String) {
        var model = Self.model()
        let (effects, notice) = Self.entered(line, into: &model)
        #expect(effects.isEmpty, "\(line)")
        #expect(notice?.hasPrefix(usage) == true, "\(line): \(notice ?? "no notice")")
    }

    @Test func followAndUnfollowWatchTheSelectedOrNamedCard() {
        var model = Self.model()
        #expect(Self.enter("/follow", into: &model) == [.submit(.watchCard(card: "k1"))])
        #expect(Self.enter("/follow 3", into: &model) == [.submit(.watchCard(card: "k3"))])
        #expect(Self.enter("/unfollow", into: &model) == [.submit(.unwatchCard(card: "k1"))])
        #expect(Self.enter("/unfollow #2", into: &model) == [.submit(.unwatchCard(card: "k2"))])
        for (line, notice) in [("/follow #1 #2", "/follow [CARD]"), ("/unfollow #1 now", "/unfollow [CARD]"), ("/follow #9", "no card #9")] {
            let (effects, said) = Self.entered(line, into: &model)
            #expect(effects.isEmpty, "\(line)")
            #expect(said?.contains(notice) == true, "\(line): \(said ?? "no notice")")
        }
    }

    /// The model on ``TUIDependencyTests/testBoard()`` after the server refused to move #4 (waiting for #1 and #3)
    /// into DOING with the reducer's own refusal, and the board.
    static func refusedBlockedMove(placement: Placement = .bottom) -> (TUIModel, TestBoard) {
        let t = TUIDependencyTests.testBoard()
        var model = Self.model()
        model.board = t.board
        let move = Op.moveCard(card: "k4", column: "doing", placement: placement)
        guard case .failure(let rejection) = t.board.applying(move, context: t.context("alice")) else {
            Issue.record("the reducer took a blocked card into DOING")
            return (model, t)
        }
        #expect(rejection.code == .blocked)
        let op = PendingOp(board: "main", mut: 7, request: .op(move))
        let reject = OpRejection(board: "main", mut: 7, rejection: rejection)
        _ = model.update(.client(.rejected(RejectedOp(op: op, reject: reject))))
        return (model, t)
    }

    @Test func forceMovesTheCardABlockedMoveWasRefusedForWithTheReason() {
        var (model, t) = Self.refusedBlockedMove(placement: Placement(after: "k3"))
        // The refusal says what to type.
        let line = model.feed.last?.text ?? ""
        #expect(line.hasPrefix("#4 was not moved: #4 is blocked by"), "\(line)")
        #expect(line.hasSuffix(" — /force REASON moves it anyway"), "\(line)")
        // A bot may not force it, so is not told to.
        var botModel = Self.refusedBlockedMove(placement: Placement(after: "k3")).0
        botModel.user = "ci"
        var bots = botModel.board!
        bots.members["ci"] = Member(id: "ci", role: .bot)
        botModel.board = bots
        let reject = OpRejection(board: "main", mut: 8, rejection: Rejection(.blocked, "#4 is blocked by #1 Fix login; finish those first"))
        _ = botModel.update(.client(.rejected(RejectedOp(op: PendingOp(board: "main", mut: 8, request: .op(.moveCard(card: "k4", column: "doing", placement: .bottom))), reject: reject))))
        #expect(botModel.feed.last?.text.contains("/force") == false, "\(botModel.feed.last?.text ?? "")")
        // Without a reason: how to give one, and no op.
        let bare = Self.entered("/force", into: &model)
        #expect(bare.effects.isEmpty)
        #expect(bare.notice == "/force REASON (why #4 goes into DOING anyway)")
        // With one: the same move, forced.
        let forced = Self.enter("/force the demo is today", into: &model)
        let op = Op.moveCard(card: "k4", column: "doing", placement: Placement(after: "k3"), force: "the demo is today")
        #expect(forced == [.submit(op)])
        t.apply(op)
        #expect(t.board.cards["k4"]?.column == "doing")
        // Once only: the next /force has nothing to force.
        let again = Self.entered("/force once more", into: &model)
        #expect(again.effects.isEmpty)
        #expect(again.notice?.hasPrefix("nothing to force") == true)
    }

    @Test func onlyABlockedRefusalCanBeForced() {
        // Nothing refused yet.
        var model = Self.model()
        let nothing = Self.entered("/force because", into: &model)
        #expect(nothing.effects.isEmpty)
        #expect(nothing.notice?.hasPrefix("nothing to force") == true)
        // A move refused for DOING's hard WIP limit is not offered /force, and does not arm it.
        let move = Op.moveCard(card: "k1", column: "doing", placement: .bottom)
        let full = OpRejection(board: "main", mut: 3, code: .rejected(.wipLimit), message: "DOING is full")
        _ = model.update(.client(.rejected(RejectedOp(op: PendingOp(board: "main", mut: 3, request: .op(move)), reject: full))))
        #expect(model.feed.last?.text == "#1 was not moved: DOING is full (1/1): move a card out, or /column wip to raise it")
        #expect(Self.entered("/force because", into: &model).effects.isEmpty)
        // Switching boards forgets a blocked refusal.
        var (switched, _) = Self.refusedBlockedMove()
        switched.switchBoard(to: "ops")
        switched.board = Self.board()
        #expect(Self.entered("/force because", into: &switched).notice?.hasPrefix("nothing to force") == true)
    }

    @Test func columnProgressMarksAColumnInProgressOrNot() {
        var t = Self.testBoard()
        var model = Self.model()
        let off = Self.enter("/column progress DOING off", into: &model)
        #expect(off == [.submit(.setInProgress(column: "doing", on: false))])
        let on = Self.enter("/column progress done ON", into: &model)
        #expect(on == [.submit(.setInProgress(column: "done", on: true))])
        Self.applied(off + on, to: &t, model: &model)
        #expect(model.board?.column("doing")?.isInProgress == false)
        #expect(model.board?.column("done")?.isInProgress == true)
        for (line, notice) in [
            ("/column progress DOING", "/column progress COLUMN on|off"),
            ("/column progress DOING maybe", "/column progress COLUMN on|off"),
            ("/column progress", "| progress COLUMN on|off"),
            ("/column progress nowhere on", "no column \"nowhere\""),
        ] {
            let (effects, said) = Self.entered(line, into: &model)
            #expect(effects.isEmpty, "\(line)")
            #expect(said?.contains(notice) == true, "\(line): \(said ?? "no notice")")
        }
    }

    @Test func theDetailSaysHowACardRecursAndWhoWatchesIt() throws {
        var t = Self.testBoard()
        t.apply(.setMember(user: "ci", role: .bot, name: nil))
        t.apply(.setRecurrence(card: "k1", recurrence: Recurrence(every: .week, days: ["mon", "thu"])))
        t.apply(.watchCard(card: "k1"), as: "ci")
        t.apply(.watchCard(card: "k1"), as: "bob")
        t.apply(.setRecurrence(card: "k2", recurrence: Recurrence(afterDoneDays: 3)))
        var model = Self.model()
        model.board = t.board
        _ = model.update(Self.key(.enter))
        var lines = model.render().lines
        #expect(lines.contains { $0.contains("Recurs: every week on mon, thu ") }, "\(lines)")
        #expect(lines.contains { $0.contains("Watched by: @bob, @ci ") }, "\(lines)")
        // Another recurrence, nobody watching.
        _ = model.update(Self.key(.escape))
        _ = model.update(Self.key(.down))
        _ = model.update(Self.key(.enter))
        lines = model.render().lines
        #expect(lines.contains { $0.contains("Recurs: 3 days after done ") }, "\(lines)")
        #expect(!lines.contains { $0.contains("Watched by") })
        // Neither: no such lines.
        _ = model.update(Self.key(.escape))
        _ = model.update(Self.key(.right))
        _ = model.update(Self.key(.enter))
        try #require(model.overlay == .detail("k3"))
        lines = model.render().lines
        #expect(!lines.contains { $0.contains("Recurs:") || $0.contains("Watched by") }, "\(lines)")
    }

    @Test func tabCompletesTheFixedWordsOfTheNewCommands() {
        let model = Self.model()
        #expect((1...2).map { Self.completing("/recur w", tabs: $0, in: model).input.text } == ["/recur weekday", "/recur week"])
        #expect(Self.completing("/recur of", in: model).input.text == "/recur off ")
        #expect(Self.completing("/recur #2 mo", in: model).input.text == "/recur #2 month ")
        #expect(Self.completing("/recur #", tabs: 2, in: model).input.text == "/recur #2")
        // After `week`, the days, also after a comma; a comma typed after a completed day joins it.
        #expect(Self.completing("/recur week mo", in: model).input.text == "/recur week mon ")
        #expect((1...2).map { Self.completing("/recur #1 week mon,t", tabs: $0, in: model).input.text }
            == ["/recur #1 week mon,tue", "/recur #1 week mon,thu"])
        var typing = Self.completing("/recur week mo", in: model)
        Self.type(",fr", into: &typing)
        _ = typing.update(Self.key(.tab))
        #expect(typing.input.text == "/recur week mon,fri ")
        // /column progress: the action, the column, then on or off.
        #expect(Self.completing("/column p", in: model).input.text == "/column progress ")
        #expect((1...2).map { Self.completing("/column progress DOING o", tabs: $0, in: model).input.text }
            == ["/column progress DOING on", "/column progress DOING off"])
        // Cards for /block, /unblock, /follow, /unfollow.
        #expect(Self.completing("/block #1 3", in: model).input.text == "/block #1 #3 ")
        #expect(Self.completing("/unfollow 2", in: model).input.text == "/unfollow #2 ")
        #expect(Self.completing("/f", tabs: 3, in: model).notice == "/filter /follow [/force]")
    }
}
