import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The card detail (Enter): the card in full and its history, fetched when it opens and kept current live.
extension TUIModelTests {
    /// A comment typed from the detail is posted and the detail stays open, where it shows up; it closed, and the
    /// next Enter could open another card.
    @Test func aCommentFromTheDetailKeepsTheDetailOpen() {
        var model = Self.model()
        _ = model.update(Self.key(.enter))
        #expect(model.overlay == .detail("k1"))
        _ = model.update(Self.key(.character("c")))
        #expect(model.focus == .input)
        Self.type("looks good", into: &model)
        let sent = model.update(Self.key(.enter))
        #expect(sent.count == 1)
        if case .submit(.addComment(let card, _, let text))? = sent.first {
            #expect(card == "k1" && text == "looks good")
        } else {
            Issue.record("\(sent)")
        }
        #expect(model.overlay == .detail("k1"), "\(String(describing: model.overlay))")
    }

    @Test func theCardDetailFetchesTheCardsHistoryAndShowsItAsSentences() {
        var t = Self.testBoard()
        t.apply(.editCard(EditCard(card: "k1", title: "Fix the login")), as: "bob")
        t.apply(.addComment(card: "k2", comment: "m1", text: "not this card"), as: "bob")
        t.apply(.assign(card: "k1", user: "bob"))
        var model = Self.model()
        model.board = t.board

        #expect(model.update(Self.key(.enter)) == [.presence(.viewing, card: "k1"), .fetchHistory("k1")])
        #expect(model.render().lines.contains { $0.contains("loading…") })

        // An answer for a card no longer open (a detail closed before its answer came) changes nothing.
        let stale = HistoryPage(board: "main", activities: [], more: false)
        _ = model.update(.history("k2", stale))
        #expect(model.history?.state == .loading)

        let records = t.changes.map(\.activity).filter { $0.card == "k1" }
        #expect(records.count == 3)
        #expect(model.update(.history("k1", HistoryPage(board: "main", activities: records, more: false))).isEmpty)
        var lines = model.render().lines
        #expect(!lines.contains { $0.contains("loading…") })
        let sentences = [
            // Each change with the names of its time, as in `cork history`; a rename says both titles.
            "alice added #1 \"Fix login\" to TODO",
            "bob renamed #1 \"Fix login\" → \"Fix the login\"",
            "alice assigned bob to #1 \"Fix the login\"",
        ]
        for sentence in sentences { #expect(lines.contains { $0.contains(sentence) }, "\(sentence)") }
        #expect(!lines.contains { $0.contains("not this card") })
        // Oldest first, as the feed reads.
        let rows = sentences.map { sentence in lines.firstIndex { $0.contains(sentence) } ?? -1 }
        #expect(rows == rows.sorted() && rows.first! >= 0)

        // A change to the open card arriving live joins its history.
        var after = t
        let closed = after.apply(.closeCard(card: "k1"), as: "bob")!.change.activity
        _ = model.update(.client(.activity(ActivityEvent(activity: closed, op: .closeCard(card: "k1"), isOwn: false, board: after.board))))
        lines = model.render().lines
        // Once in the feed at the bottom, once in the detail's history.
        #expect(lines.filter { $0.contains("bob closed #1 \"Fix the login\"") }.count == 2)
    }

    @Test func aHistorySentenceLongerThanTheBoxEndsInAnEllipsis() {
        var t = Self.testBoard()
        let title = "Fix the login timeout that only happens on the staging cluster at night"
        t.apply(.editCard(EditCard(card: "k1", title: title)), as: "bob")
        var model = Self.model()
        model.board = t.board
        _ = model.update(Self.key(.enter))
        let records = t.changes.map(\.activity).filter { $0.card == "k1" }
        _ = model.update(.history("k1", HistoryPage(board: "main", activities: records, more: false)))
        let row = model.render().lines.first { $0.contains("bob renamed #1") } ?? ""
        #expect(row.contains("…"), "\(row)")
        #expect(!row.contains("at night\""), "\(row)")
    }

    @Test func aHistoryThatCannotBeReadSaysWhyAndIsAskedForAgainOnceConnected() {
        var model = Self.model()
        _ = model.update(Self.key(.enter))
        _ = model.update(.historyFailed("k1", "the answer to history timed out"))
        #expect(model.render().lines.contains { $0.contains("unavailable: the answer to history timed out") })
        // Back online, it is asked for again; once read, a reconnect does not ask again.
        let connected = TUIMessage.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice")))
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(1), lastError: "reset"))))
        #expect(model.update(connected) == [.fetchHistory("k1")])
        #expect(model.render().lines.contains { $0.contains("loading…") })
        _ = model.update(.history("k1", HistoryPage(board: "main", activities: [], more: false)))
        #expect(model.render().lines.contains { $0.contains("no changes recorded") })
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(1), lastError: "reset"))))
        #expect(model.update(connected).isEmpty)
        // Closing the detail and opening another card asks again, for that card.
        _ = model.update(Self.key(.escape))
        _ = model.update(Self.key(.down))
        #expect(model.update(Self.key(.enter)).contains(.fetchHistory("k2")))
    }

    @Test func aLongHistoryShowsItsNewestLinesAndTheFooterStaysOnScreen() {
        var t = Self.testBoard()
        for n in 1...20 { t.apply(.editCard(EditCard(card: "k1", title: "Title \(n)")), as: "bob") }
        var model = Self.model(width: 80, height: 24)
        model.board = t.board
        _ = model.update(Self.key(.enter))
        let records = t.changes.map(\.activity).filter { $0.card == "k1" }
        _ = model.update(.history("k1", HistoryPage(board: "main", activities: records, more: true)))
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("\"Title 19\" → \"Title 20\"") })
        #expect(!lines.contains { $0.contains("\"Title 1\" → \"Title 2\"") })
        #expect(lines.contains { $0.contains("older not shown") })
        #expect(lines.contains { $0.contains("c comment · E edit the description · Esc close") })
    }
}

extension TUIModelTests {
    /// In a wide terminal the detail shows a long title, description line and comment whole, wrapped to its box; it
    /// stayed 72 columns wide and cut each of them with `…`.
    @Test func theCardDetailWrapsLongTextInsteadOfCuttingIt() {
        var t = Self.testBoard()
        let title = "Investigate intermittent 502s from the EU load balancer during deploys of the API gateway"
        let comment = "I saw these too on Tuesday, haproxy logs say backend timeout after exactly thirty seconds every time"
        let description = "Started after the move to the new region; " + (1...12).map { "step\($0)" }.joined(separator: " ")
        t.apply(.editCard(EditCard(card: "k1", title: title, description: description)))
        t.apply(.addComment(card: "k1", comment: "m1", text: comment), as: "bob")
        for width in [160, 80] {
            var model = Self.model(width: width, height: 40)
            model.board = t.board
            _ = model.update(Self.key(.enter))
            let lines = model.render().lines
            // The text inside the box (centred, at most 100 columns wide), row after row.
            let box = min(width - 1, 100), left = (width - box + 1) / 2
            let inside = lines.map { String(Array($0)[(left + 1)..<(left + box - 1)]) }
            #expect(!inside.contains { $0.contains("…") && !$0.contains("loading…") }, "width \(width): something is cut:\n\(inside.joined(separator: "\n"))")
            let shown = inside.joined(separator: " ").split(separator: " ").joined(separator: " ")
            for text in [title, "bob: " + comment, description] {
                #expect(shown.contains(text), "width \(width): \(text) is not shown whole:\n\(inside.joined(separator: "\n"))")
            }
        }
    }
}
