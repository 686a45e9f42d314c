import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The board picker (`b`, `/board`), the members overlay (`/members`) and the archive view (`/archive`).
extension TUIModelTests {
    static let summaries = [
        BoardSummary(board: "main", name: "Main", role: .owner, seq: 9),
        BoardSummary(board: "ops", name: "Ops rota", role: .viewer, seq: 1204),
    ]

    @Test func theBoardPickerListsSwitchesAndCreatesBoards() {
        var model = Self.model()
        #expect(model.update(Self.key(.character("b"))) == [.listBoards])
        #expect(model.render().lines.contains { $0.contains("listing the boards…") })
        _ = model.update(.boards(Self.summaries))
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("● main  Main  (owner)") })
        #expect(lines.contains { $0.contains("ops  Ops rota  (viewer)") })
        // Enter on the current board only closes; on another, switches.
        _ = model.update(Self.key(.character("j")))
        #expect(model.update(Self.key(.enter)) == [.switchBoard("ops")])
        #expect(model.boardID == "ops" && model.overlay == nil)

        // n creates a board (ID NAME); once the server says so, the client follows it.
        _ = model.update(Self.key(.character("b")))
        _ = model.update(Self.key(.character("n")))
        Self.type("release-2026 Release 2026", into: &model)
        #expect(model.update(Self.key(.enter)) == [.createBoard("release-2026", name: "Release 2026")])
        #expect(model.update(.boardCreated("release-2026")) == [.switchBoard("release-2026")])
        #expect(model.boardID == "release-2026")
        // A refusal lands in the feed.
        _ = model.update(.boardsFailed("board id release-2026 is taken"))
        #expect(model.feed.last?.text == "boards: board id release-2026 is taken")
    }

    /// The picker opened offline says why it is empty, and asks for the list again once connected: it had stayed on
    /// "listing the boards…" for good.
    @Test func theBoardPickerOpenedOfflineFillsOnceConnected() {
        var model = Self.model()
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(5), lastError: "connection refused"))))
        #expect(model.update(Self.key(.character("b"))) == [.listBoards])
        _ = model.update(.boardsFailed("not connected"))
        #expect(model.render().lines.contains { $0.contains("could not list the boards (not connected)") })
        let back = model.update(.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice"))))
        #expect(back.contains(.listBoards), "\(back)")
        _ = model.update(.boards(Self.summaries))
        #expect(model.render().lines.contains { $0.contains("ops  Ops rota  (viewer)") })
    }

    /// A command typed before the board has loaded (offline after `/board`) stays in the line to run once it has;
    /// it had been cleared, and its notice outlived the load.
    @Test func aCommandTypedBeforeTheBoardLoadsIsKept() {
        var model = Self.model()
        let board = model.board!
        model.board = nil
        #expect(Self.enter("/add Offline cork card", into: &model).isEmpty)
        #expect(model.input.text == "/add Offline cork card", "\(model.input.text)")
        #expect(model.notice?.hasPrefix("the board is not loaded yet") == true, "\(model.notice ?? "")")
        _ = model.update(Self.loaded(board))
        #expect(model.notice == nil, "\(model.notice ?? "")")
        #expect(model.update(Self.key(.enter)).contains { if case .submit(.addCard) = $0 { true } else { false } })
    }

    @Test func theBoardCommandOpensThePickerSwitchesCreatesAndCompletes() {
        var model = Self.model()
        #expect(Self.enter("/board", into: &model) == [.listBoards])
        #expect(model.overlay == .boards)
        _ = model.update(.boards(Self.summaries))
        _ = model.update(Self.key(.escape))
        #expect(Self.completing("/board o", in: model).input.text == "/board ops ")
        #expect(Self.completing("/board cr", in: model).input.text == "/board create ")
        #expect(Self.enter("/board create q3 Q3 planning", into: &model) == [.createBoard("q3", name: "Q3 planning")])
        #expect(Self.enter("/board create Roadmap", into: &model) == [.createBoard("roadmap", name: "Roadmap")])
        // A name of two words is a name (it made the board `Ops` named `rota`); a lower-case first word is an id.
        #expect(Self.enter("/board create Ops rota", into: &model) == [.createBoard("ops-rota", name: "Ops rota")])
        #expect(Self.enter("/board create ops_2 Ops rota", into: &model) == [.createBoard("ops_2", name: "Ops rota")])
        #expect(Self.enter("/board ops", into: &model) == [.switchBoard("ops")])
        var fresh = Self.model()
        _ = Self.enter("/board create ops_3 Ops", into: &fresh)
        #expect(fresh.notice == "creating board ops_3…")
        _ = fresh.update(.boardCreated("ops_3"))
        #expect(fresh.notice == nil, "the notice 'creating board …' ends with the creation")
        // Or with the refusal, which it names (it stayed on 'creating board …').
        var refused = Self.model()
        _ = Self.enter("/board create ops", into: &refused)
        _ = refused.update(.boardsFailed("bad_request: board id ops is taken"))
        #expect(refused.notice == "boards: bad_request: board id ops is taken")
    }

    @Test func membersShowRolesAndWhoIsOnlineAndTheOwnerChangesRoles() throws {
        var t = Self.testBoard()
        t.apply(.setMember(user: "carol", role: .viewer, name: nil))
        var model = Self.model()
        model.board = t.board
        model.presence = [
            "s-2": PresenceEntry(session: "s-2", user: "bob", state: .viewing, card: nil, column: nil, index: nil, away: nil),
        ]
        #expect(Self.enter("/members", into: &model).isEmpty)
        #expect(model.overlay == .members)
        let lines = model.render().lines
        let rows = ["alice", "bob", "carol"].map { user in lines.firstIndex { $0.contains(" \(user)") } ?? -1 }
        #expect(rows == rows.sorted() && !rows.contains(-1))
        #expect(lines[rows[0]].contains("● online   owner   alice"))
        #expect(lines[rows[1]].contains("● online   editor  bob (Bob)"))
        #expect(lines[rows[2]].contains("○ offline  viewer  carol"))

        // The owner makes carol an editor: select her, press e.
        _ = model.update(Self.key(.character("G")))
        #expect(model.update(Self.key(.character("e"))) == [.submit(.setMember(user: "carol", role: .editor, name: nil))])
        // Made an owner, carol is still the selected row: the next key is hers, not someone else's.
        t.apply(.setMember(user: "carol", role: .owner, name: nil))
        model.board = t.board
        #expect(model.update(Self.key(.character("v"))) == [.submit(.setMember(user: "carol", role: .viewer, name: nil))])
        // Two keys before the first change comes back: both are sent (the second was dropped as "already editor").
        t.apply(.setMember(user: "carol", role: .editor, name: nil))
        _ = model.update(Self.loaded(t.board))
        #expect(model.update(Self.key(.character("v"))) == [.submit(.setMember(user: "carol", role: .viewer, name: nil))])
        #expect(model.update(Self.key(.character("e"))) == [.submit(.setMember(user: "carol", role: .editor, name: nil))])
        _ = model.update(Self.loaded(t.board))
        // Someone added above her row while the list is open: the selection stays on carol.
        t.apply(.setMember(user: "aaron", role: .editor, name: nil))
        _ = model.update(Self.loaded(t.board))
        #expect(model.update(Self.key(.character("b"))) == [.submit(.setMember(user: "carol", role: .bot, name: nil))])
        // Someone who is not an owner is told so, and nothing is sent.
        model.user = "bob"
        #expect(model.update(Self.key(.character("o"))).isEmpty)
        #expect(model.notice == "only an owner changes roles")
    }

    /// With nothing archived and no search, the archive says so, not that nothing matches a search never made.
    @Test func anEmptyArchiveSaysNothingIsArchived() {
        var model = Self.model()
        #expect(Self.enter("/archive", into: &model).isEmpty)
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("no card is archived") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains("matches") })
    }

    @Test func theArchiveViewSearchesAndRestoresArchivedCards() {
        var t = Self.testBoard()
        t.apply(.archiveCard(card: "k1"))
        t.apply(.archiveCard(card: "k2"))
        var model = Self.model()
        model.board = t.board
        #expect(Self.enter("/archive", into: &model).isEmpty)
        #expect(model.overlay == .archive)
        var lines = model.render().lines
        #expect(lines.contains { $0.contains("2 archived") })
        let first = lines.firstIndex { $0.contains("#2 Write docs") } ?? -1
        let second = lines.firstIndex { $0.contains("#1 Fix login") } ?? -1
        #expect(first >= 0 && first < second)

        // / searches (the filter language, or words of the title).
        _ = model.update(Self.key(.character("/")))
        Self.type("label:bug", into: &model)
        _ = model.update(Self.key(.enter))
        lines = model.render().lines
        #expect(lines.contains { $0.contains("1 of 2 archived match label:bug") })
        #expect(!lines.contains { $0.contains("#2 Write docs") })

        // Enter restores the selected one.
        #expect(model.update(Self.key(.enter)) == [.submit(.restoreCard(card: "k1"))])
        // `/archive #2` still archives a card, and `/archive words` opens the view searching.
        _ = model.update(Self.key(.escape))
        #expect(Self.enter("/archive #3", into: &model) == [.submit(.archiveCard(card: "k3"))])
        // One archived already is said, not sent.
        #expect(Self.enter("/archive #2", into: &model).isEmpty && model.notice == "#2 is archived already: no change")
        #expect(Self.enter("/archive docs", into: &model).isEmpty)
        #expect(model.archiveSearch == "docs" && model.overlay == .archive)
    }
}
