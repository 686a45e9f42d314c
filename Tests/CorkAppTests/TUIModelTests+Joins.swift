import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// Joins and leaves in the feed: folded by default, shown one by one or hidden with `/set joins`.
extension TUIModelTests {
    /// `user` opens a session (`join`) or closes it, as the client reports it.
    static func presence(_ user: UserID, session: SessionID, joins: Bool, in model: inout TUIModel) {
        var sessions = model.presence
        if joins {
            let entry = PresenceEntry(session: session, user: user, state: .viewing)
            sessions[session] = entry
            _ = model.update(.client(.presence(PresenceEvent(sessions: sessions, change: .updated(entry)))))
        } else {
            sessions[session] = nil
            _ = model.update(.client(.presence(PresenceEvent(sessions: sessions, change: .left(session: session, user: user)))))
        }
    }

    /// A one-shot `cork add` as others saw it before the server stopped announcing them: join, add, leave.
    static func oneShotAdd(_ n: Int, in model: inout TUIModel) {
        presence("ci-bot", session: SessionID("s-\(n)"), joins: true, in: &model)
        let activity = Activity(seq: UInt64(100 + n), at: Timestamp(milliseconds: 0), actor: "ci-bot", kind: "chat", text: "build \(n)")
        _ = model.update(.client(.activity(ActivityEvent(activity: activity, op: .chat(text: "build \(n)"), isOwn: false, board: model.board!))))
        presence("ci-bot", session: SessionID("s-\(n)"), joins: false, in: &model)
    }

    /// What someone said with `/away` shows in `/who` and `/members` while they are away.
    @Test func anAwayNoteShowsInWhoAndMembers() {
        var model = Self.model()
        let entry = PresenceEntry(session: "s-b", user: "bob", state: .viewing, away: true, awayNote: "lunch, back at 2")
        _ = model.update(.client(.presence(PresenceEvent(sessions: ["s-b": entry], change: .updated(entry)))))
        _ = Self.enter("/who", into: &model)
        #expect(model.feed.last?.text.contains("bob (away: lunch, back at 2)") == true, "\(model.feed.last?.text ?? "")")
        _ = Self.enter("/members", into: &model)
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("◐ away") && $0.contains(" bob") && $0.contains("— lunch, back at 2") }, "\(lines.joined(separator: "\n"))")
    }

    @Test func joinsAndLeavesFoldIntoOneLineByDefault() {
        var model = Self.model()
        let before = model.feed.count
        Self.presence("bob", session: "s-b", joins: true, in: &model)
        Self.presence("carol", session: "s-c", joins: true, in: &model)
        Self.presence("bob", session: "s-b", joins: false, in: &model)
        Self.presence("bob", session: "s-b2", joins: true, in: &model)
        #expect(model.feed.count == before + 1)
        // Told in order, ending with where bob is now: here (it read "joined and left" while he was online).
        #expect(model.feed.last?.text == "bob joined, left and came back · carol joined")
        Self.presence("carol", session: "s-c", joins: false, in: &model)
        Self.presence("carol", session: "s-c2", joins: true, in: &model)
        #expect(model.feed.last?.text == "bob joined, left and came back · carol joined, left and came back")
        // Someone who was here before the line began, quits and starts again: here now, as the line ends.
        var tally = PresenceTally()
        tally.add("dave", joined: false)
        tally.add("dave", joined: true)
        tally.add("erin", joined: false)
        tally.add("erin", joined: true)
        tally.add("erin", joined: false)
        #expect(tally.text == "dave left and came back · erin left, came back and left")
        #expect(model.unread == 1)

        // 500 one-shot commands: 500 lines of their own, and one line of comings and goings, kept at the bottom.
        var many = Self.model()
        for n in 1...500 { Self.oneShotAdd(n, in: &many) }
        #expect(many.feed.count == 501)
        #expect(many.unread == 501)
        #expect(many.feed.last?.text == "ci-bot joined and left ×500")
        #expect(many.feed.dropLast().allSatisfy { $0.kind == .chat })
    }

    @Test func slashSetJoinsShowsEachOrHidesThem() {
        var model = Self.model()
        #expect(Self.enter("/set joins off", into: &model).isEmpty)
        #expect(model.feed.last?.text == "joins and leaves: off")
        let before = model.feed.count
        Self.presence("bob", session: "s-b", joins: true, in: &model)
        Self.presence("bob", session: "s-b", joins: false, in: &model)
        #expect(model.feed.count == before)
        // /who still knows who is here.
        Self.presence("carol", session: "s-c", joins: true, in: &model)
        _ = Self.enter("/who", into: &model)
        #expect(model.feed.last?.text.contains("carol") == true)

        _ = Self.enter("/set joins on", into: &model)
        Self.presence("dave", session: "s-d", joins: true, in: &model)
        Self.presence("erin", session: "s-e", joins: true, in: &model)
        #expect(model.feed.suffix(2).map(\.text) == ["dave joined", "erin joined"])

        _ = Self.enter("/set joins sometimes", into: &model)
        #expect(model.notice == "/set joins on|fold|off")
        _ = Self.enter("/set", into: &model)
        #expect(model.feed.last?.text == "joins and leaves: on")
    }

    /// Two sessions of one person (two terminals, or a resubscribe before the old session is gone) are one person
    /// here: the second is no second "joined", and they leave when their last session does.
    @Test(arguments: [JoinsDisplay.fold, .on])
    func aSecondSessionOfSomeoneHereIsNotASecondJoin(joins: JoinsDisplay) {
        var model = Self.model()
        model.joins = joins
        let before = model.feed.count
        Self.presence("bob", session: "s-b1", joins: true, in: &model)
        Self.presence("bob", session: "s-b2", joins: true, in: &model)
        #expect(model.feed.dropFirst(before).map(\.text) == ["bob joined"])
        Self.presence("bob", session: "s-b1", joins: false, in: &model)
        #expect(model.feed.dropFirst(before).map(\.text) == ["bob joined"], "bob is still here")
        Self.presence("bob", session: "s-b2", joins: false, in: &model)
        #expect(model.feed.dropFirst(before).map(\.text)
            == (joins == .fold ? ["bob joined and left"] : ["bob joined", "bob left"]))
    }
}
