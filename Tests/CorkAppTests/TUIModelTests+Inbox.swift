import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The user's inbox in the full-screen client: the count in the status line, a feed line and the terminal's
/// notification for each new entry, `/set notify`, and the inbox view (`I`, `/inbox`).
extension TUIModelTests {
    /// 2026-03-10 09:05 UTC (``today``).
    static let inboxTime = Timestamp(milliseconds: 1_773_133_500_000)

    /// An entry for alice from bob, as the server words it: #3 "Ship it" of board main unless told otherwise.
    static func inboxEntry(
        _ id: Int64, kind: InboxEntry.Kind = .mention, board: BoardID = "main", card: CardID? = "k3",
        text: String = "#3 Ship it: @alice can you look?", read: Bool = false
    ) -> InboxEntry {
        InboxEntry(
            id: id, user: "alice", board: board, seq: UInt64(id), card: card, kind: kind, actor: "bob",
            at: inboxTime, text: text, read: read)
    }

    /// A model whose server offers the inbox, in a terminal that takes OSC 9.
    static func inboxModel() -> TUIModel {
        var model = Self.model()
        model.inbox.available = true
        model.terminalNotification = .osc9
        return model
    }

    /// The server pushes `entry` with `unread` entries unread; the effects.
    @discardableResult
    static func push(_ entry: InboxEntry, unread: Int, into model: inout TUIModel) -> [TUIEffect] {
        model.update(.client(.inbox(.entry(entry, unread: unread))))
    }

    @Test func aNewEntryCountsInTheStatusLineShowsInTheFeedAndNotifies() {
        var model = Self.inboxModel()
        #expect(!model.statusText.contains("✉"))
        let effects = Self.push(Self.inboxEntry(12), unread: 1, into: &model)
        let sentence = "bob mentioned you on main #3: Ship it: @alice can you look?"
        #expect(effects == [.notify("\u{1B}]9;\(sentence)\u{07}")])
        #expect(model.statusText.contains("connected · ✉ 1"))
        #expect(model.render().lines[model.height - 2].contains("✉ 1"))
        #expect(model.feed.last?.text == "✉ " + sentence)
        #expect(model.feed.last?.kind == .inbox)

        // Read on another client: the count follows the server.
        Self.push(Self.inboxEntry(13, kind: .assigned, text: "assigned you to #3 Ship it"), unread: 2, into: &model)
        #expect(model.statusText.contains("✉ 2"))
        #expect(model.feed.last?.text == "✉ bob assigned you to main #3: Ship it")
        #expect(model.update(.client(.inbox(.read(ids: [12, 13], unread: 0)))).isEmpty)
        #expect(!model.statusText.contains("✉"))
        #expect(model.inbox.entries.allSatisfy { $0.read })
    }

    @Test func slashSetNotifyChoosesTheNotificationABellOrNothing() {
        var model = Self.inboxModel()
        model.terminalNotification = .osc777
        let moved = Self.inboxEntry(1, kind: .moved, text: #"moved #3 "Ship it" DOING → DONE"#)
        #expect(Self.push(moved, unread: 1, into: &model) == [
            .notify("\u{1B}]777;notify;Corkboard;bob moved main #3: \"Ship it\" DOING → DONE\u{07}")
        ])

        #expect(Self.enter("/set notify bell", into: &model).isEmpty)
        #expect(model.notify == .bell)
        #expect(model.feed.last?.text == "notify bell: a new inbox entry rings the bell")
        #expect(Self.push(Self.inboxEntry(2), unread: 2, into: &model) == [.notify("\u{07}")])

        _ = Self.enter("/set notify off", into: &model)
        #expect(Self.push(Self.inboxEntry(3), unread: 3, into: &model).isEmpty)
        #expect(model.feed.last?.text.hasPrefix("✉ bob mentioned you") == true, "still in the feed")
        #expect(model.statusText.contains("✉ 3"), "and counted")

        // A terminal without notifications gets a bell, and `/set notify` says so.
        model.terminalNotification = .bell
        _ = Self.enter("/set notify on", into: &model)
        #expect(model.feed.last?.text.contains("a bell (this terminal has no notification") == true)
        #expect(Self.push(Self.inboxEntry(4), unread: 4, into: &model) == [.notify("\u{07}")])

        _ = Self.enter("/set notify loud", into: &model)
        #expect(model.notice == "/set notify on|bell|off")
        _ = Self.enter("/set volume 3", into: &model)
        #expect(model.notice == "/set joins on|fold|off, or /set notify on|bell|off")
        // `/set` alone lists both settings.
        _ = Self.enter("/set", into: &model)
        #expect(model.feed.suffix(2).map(\.text) == [
            "notify on: a new inbox entry brings a bell (this terminal has no notification cork knows of)",
            "joins and leaves: fold",
        ])
        #expect(Self.completing("/set n").input.text == "/set notify ")
        #expect(Self.completing("/set notify b").input.text == "/set notify bell ")
    }

    @Test func anInboxLineLongerThanTheViewEndsInAnEllipsis() {
        var model = Self.inboxModel()
        let long = "#3 Ship it: " + String(repeating: "words ", count: 30) + "END"
        Self.push(Self.inboxEntry(20, text: long), unread: 1, into: &model)
        _ = model.update(Self.key(.character("I")))
        let row = model.render().lines.first { $0.contains("bob mentioned you on main #3") } ?? ""
        #expect(row.contains("…"), "\(row)")
        #expect(!row.contains("END"))
    }

    /// A terminal wider than the inbox's 78 columns shows a long entry whole instead of cutting it at 78 (a reminder's
    /// due date was cut: `… is overdue (due 2026-1…`).
    @Test func aWideTerminalShowsALongInboxLineWhole() {
        var model = TUIModelTests.model(width: 120, height: 30)
        model.inbox.available = true
        let text = "#3 Ship it: @alice the release notes need a second look END"
        Self.push(Self.inboxEntry(21, text: text), unread: 1, into: &model)
        _ = model.update(Self.key(.character("I")))
        let row = model.render().lines.first { $0.contains("bob mentioned you on main #3") } ?? ""
        #expect(row.contains("second look END"), "\(row)")
        // In an 80-column terminal the same line still ends in `…`.
        model.width = 80
        let narrow = model.render().lines.first { $0.contains("bob mentioned you on main #3") } ?? ""
        #expect(narrow.contains("…") && !narrow.contains("END"), "\(narrow)")
    }

    /// A list's keys at its foot show whole in a wide terminal, and end in `…` when cut: the milestones list lost
    /// `/reopen · Esc` at 78 columns with nothing to say so.
    @Test func aListsFooterShowsWholeOrEndsInAnEllipsis() {
        var model = TUIModelTests.model(width: 120, height: 30)
        _ = model.update(Self.key(.character("M")))
        let footer: (TUIModel) -> String = { model in
            model.render().lines.first { $0.contains("Enter put the card(s) in it") } ?? ""
        }
        #expect(footer(model).contains("C close/reopen · Esc"), "\(footer(model))")
        model.width = 80
        #expect(footer(model).contains("…") && !footer(model).contains("Esc"), "\(footer(model))")
    }

    @Test func theInboxViewListsNewestFirstMarksWhatItListsReadAndEnterGoesToTheCard() {
        var model = Self.inboxModel()
        Self.push(Self.inboxEntry(20), unread: 1, into: &model)
        // I opens it: what is known is shown at once and the newest page is asked for; what the page lists is read.
        #expect(model.update(Self.key(.character("I"))) == [.fetchInbox])
        #expect(model.overlay == .inbox)

        let page = [
            Self.inboxEntry(20),
            Self.inboxEntry(18, kind: .comment, card: "k1", text: "#1 Fix login: works on staging"),
            Self.inboxEntry(9, board: "ops", card: "x4", text: "#7 Rotate keys: @alice yours?", read: true),
            Self.inboxEntry(22, kind: .assigned, card: "k2", text: "assigned you to #2 Write docs"),
        ]
        // The page's entries not read yet are read now, as they are listed.
        #expect(model.update(.inbox(page, unread: 3)) == [.markInboxRead([22, 20, 18])])
        #expect(model.inbox.entries.map(\.id) == [22, 20, 18, 9])
        #expect(model.inbox.unread == 0)
        #expect(!model.statusText.contains("✉"), "read as soon as it is listed")
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("3 new · all your boards, newest first") })
        #expect(lines.contains { $0.contains("▸ • 09:05 bob assigned you to main #2: Write docs") })
        #expect(lines.contains { $0.contains("• 09:05 bob mentioned you on main #3: Ship it: @alice can you look?") })
        #expect(lines.contains { $0.contains("• 09:05 bob commented on main #1: Fix login: works on staging") })
        #expect(lines.contains { $0.contains("   09:05 bob mentioned you on ops #7: Rotate keys: @alice yours?") })

        // The server confirms; another entry arrives while the view is open: read at once, the selection stays put.
        _ = model.update(.client(.inbox(.read(ids: [22, 20, 18], unread: 0))))
        _ = model.update(Self.key(.character("j")))
        let arriving = Self.push(Self.inboxEntry(23, card: "k1", text: "#1 Fix login: @alice ping"), unread: 1, into: &model)
        #expect(arriving.first == .markInboxRead([23]))
        #expect(model.inbox.unread == 0)
        #expect(model.overlayRow == 2)
        #expect(model.inbox.entries[model.overlayRow].id == 20)

        // Enter on an entry of another board says where it is.
        _ = model.update(Self.key(.character("G")))
        #expect(model.update(Self.key(.enter)).isEmpty)
        #expect(model.notice == "that is on board ops: /board ops goes there")
        #expect(model.overlay == .inbox)

        // Enter on #3's entry: its detail, selected on the board.
        _ = model.update(Self.key(.character("g")))
        _ = model.update(Self.key(.character("j")))
        _ = model.update(Self.key(.character("j")))
        #expect(model.update(Self.key(.enter)) == [.presence(.viewing, card: "k3"), .fetchHistory("k3")])
        #expect(model.overlay == .detail("k3"))
        #expect(model.selectedCard?.id == "k3")
    }

    /// Entries that arrived live are known to the client beyond the page the view lists: opening the view must not
    /// mark those read, or they are neither seen nor mailed.
    @Test func openingTheInboxMarksReadOnlyTheEntriesItLists() {
        var model = Self.inboxModel()
        _ = model.update(.resize(width: 100, height: 80))  // room for the whole page
        for id in Int64(1)...60 { Self.push(Self.inboxEntry(id), unread: Int(id), into: &model) }
        #expect(model.update(Self.key(.character("I"))) == [.fetchInbox])
        let page = (Int64(11)...60).reversed().map { Self.inboxEntry($0) }
        #expect(model.update(.inbox(page, unread: 60)) == [.markInboxRead(Array((Int64(11)...60).reversed()))])
        #expect(model.inbox.unread == 10, "the 10 older entries stay unread")
        // The view says where they are.
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("10 older unread: cork inbox --unread --before 11") }, "\(lines.suffix(3))")
    }

    /// In a small window the view shows a few entries: only those are marked read, and the rest as scrolling shows
    /// them (opening it in 50×10 had marked all five read, with two on screen).
    @Test func aSmallWindowMarksReadOnlyTheEntriesOnScreen() {
        var model = Self.inboxModel()
        _ = model.update(.resize(width: 50, height: 10))
        for id in Int64(1)...5 { Self.push(Self.inboxEntry(id), unread: Int(id), into: &model) }
        _ = model.update(Self.key(.character("I")))
        let page = (Int64(1)...5).reversed().map { Self.inboxEntry($0) }
        #expect(model.update(.inbox(page, unread: 5)) == [.markInboxRead([5, 4])])
        #expect(model.inbox.unread == 3)
        #expect(model.update(Self.key(.character("j"))).isEmpty, "the second entry is on screen already")
        #expect(model.update(Self.key(.character("j"))) == [.markInboxRead([3])])
        #expect(model.update(Self.key(.end)) == [.markInboxRead([2, 1])])
        #expect(model.inbox.unread == 0)
    }

    @Test func slashInboxOpensTheViewAndEscCloses() {
        var model = Self.inboxModel()
        #expect(Self.enter("/inbox", into: &model) == [.fetchInbox])
        #expect(model.overlay == .inbox)
        #expect(model.render().lines.contains { $0.contains("reading the inbox…") })
        _ = model.update(.inbox([], unread: 0))
        #expect(model.render().lines.contains { $0.contains("your inbox is empty") })
        #expect(model.update(Self.key(.escape)) == [.presence(.viewing, card: "k1")])
        #expect(model.overlay == nil)
    }

    @Test func aServerWithoutAnInboxSaysSo() {
        var model = Self.model()
        #expect(model.update(Self.key(.character("I"))).isEmpty)
        #expect(model.overlay == nil)
        #expect(model.notice == "this server has no inbox (it needs a newer corkd)")
        #expect(Self.enter("/inbox", into: &model).isEmpty)
        #expect(model.overlay == nil)
    }

    /// Pushes do not cover the time offline: each connection asks for the inbox again, when the server has one.
    @Test func eachConnectionReadsTheInboxCount() {
        var model = Self.inboxModel()
        model.connection = .reconnecting(in: .seconds(2), lastError: "")
        let connected = ConnectionState.connected(endpoint: "127.0.0.1:7420", user: "alice")
        #expect(model.update(.client(.connection(connected))) == [.fetchInbox])
        #expect(model.update(.client(.connection(connected))).isEmpty, "not again while connected")
        #expect(model.update(.inbox([Self.inboxEntry(5)], unread: 4)).isEmpty, "the view is closed: nothing is read")
        #expect(model.statusText.contains("✉ 4"))

        var older = Self.model()
        older.connection = .reconnecting(in: .seconds(2), lastError: "")
        #expect(older.update(.client(.connection(connected))).isEmpty)
    }

    @Test func anInboxThatCannotBeReadSaysWhy() {
        var model = Self.inboxModel()
        _ = model.update(.inboxFailed("the answer to request 3 did not come in 10 s"))
        #expect(model.feed.last?.text == "inbox: the answer to request 3 did not come in 10 s")
        _ = model.update(Self.key(.character("I")))
        _ = model.update(.inboxFailed("no inbox today"))
        #expect(model.render().lines.contains { $0.contains("the inbox could not be read: no inbox today") })
    }

    @Test func terminalsGetTheNotificationTheyAreKnownToShow() {
        let cases: [([String: String], TerminalNotification)] = [
            (["TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"], .osc9),
            (["TERM_PROGRAM": "WezTerm", "TERM": "xterm-256color"], .osc777),
            (["TERM_PROGRAM": "ghostty", "TERM": "xterm-ghostty"], .osc777),
            (["TERM": "xterm-kitty"], .osc9),
            (["TERM": "foot"], .osc777),
            (["TERM": "rxvt-unicode-256color"], .osc777),
            (["TERM": "xterm-256color"], .bell),
            (["TERM_PROGRAM": "Apple_Terminal", "TERM": "xterm-256color"], .bell),
            // Multiplexers swallow the sequences but pass a bell on.
            (["TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color", "TMUX": "/tmp/tmux-1/default,1,0"], .bell),
            (["TERM_PROGRAM": "tmux", "TERM": "tmux-256color"], .bell),
            (["TERM": "screen.xterm-kitty"], .bell),
            (["TERM": "xterm-kitty", "STY": "1234.pts-0.host"], .bell),
            ([:], .bell),
        ]
        for (environment, expected) in cases {
            #expect(TerminalNotification.detect(environment) == expected, "\(environment)")
        }
    }

    /// A text cannot end the sequence early or smuggle one of its own in.
    @Test func notificationTextLosesItsControlCharacters() {
        let evil = "bob: \u{1B}]0;pwned\u{07}\nline two\u{9C}"
        #expect(TerminalNotification.osc9.sequence(evil) == "\u{1B}]9;bob: ]0;pwned line two\u{07}")
        #expect(TerminalNotification.osc777.sequence(evil) == "\u{1B}]777;notify;Corkboard;bob: ]0;pwned line two\u{07}")
        #expect(TerminalNotification.bell.sequence(evil) == "\u{07}")
        let long = TerminalNotification.osc9.sequence(String(repeating: "x", count: 500))
        #expect(long.count == TerminalNotification.textMax + 5)
    }
}
