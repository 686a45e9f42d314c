import BoardClient
import BoardCore
import BoardTesting
import Foundation
import Testing

/// Pages of one board on a real corkd (started as an unprivileged user), with changes of their own in flight
/// between the others' changes: each page, applying what it is sent the way the page does (docs/web.md), ends with
/// the server's board. Pages showing the confirmed board get the diffs of their board's shared view; a page with
/// an own change detaches, is sent its session's own diffs, and attaches again; a mistake in that hand-over (a diff
/// sent twice, one missed, one against the wrong order) leaves a page with another order than the server's.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct SharedViewsConvergenceTests {
    /// What a page shows: the columns' card ids in order, and the seq, from `board` and `diff` messages applied in
    /// the page's order: removals by descending old index, then insertions and moved-in cards by ascending new index.
    struct PageModel {
        var seq = 0
        var columns: [String] = []
        var cards: [String: [String]] = [:]
        var problems: [String] = []
        /// The page's own changes the feed reported, and the refusals it was sent.
        var ownChanges = 0
        /// How many whole boards it was sent: one at the start. Moves of cards always fit a diff, so another means a
        /// session found what the page shows not to match (and sent the whole board to mend it).
        var boards = 0
        var refusals: [String] = []
        /// The last messages taken, in short (type and seq), for a problem's report.
        var trail: [String] = []

        mutating func take(_ message: [String: Any]) {
            let type = message["t"] as? String ?? "?"
            // A status says whether the session's client is connected: a reconnect would explain a whole board.
            let detail = message["seq"].map { "@\($0)" } ?? (message["state"] as? String).map { "(\($0))" } ?? ""
            trail.append(type + detail)
            if trail.count > 12 { trail.removeFirst() }
            switch type {
            case "board":
                boards += 1
                if boards > 1 {
                    problems.append("a whole board at seq \(message["seq"] ?? "?") after seq \(seq) (messages before: \(trail.dropLast().joined(separator: " ")))")
                }
                seq = message["seq"] as? Int ?? 0
                columns = []
                cards = [:]
                for column in message["columns"] as? [[String: Any]] ?? [] {
                    guard let id = column["id"] as? String else { continue }
                    columns.append(id)
                    cards[id] = (column["cards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                }
            case "diff":
                apply(diff: message)
            case "feed" where message["replace"] as? Bool != true:
                ownChanges += (message["items"] as? [[String: Any]] ?? []).filter { $0["own"] as? Bool == true && $0["kind"] as? String == "change" }.count
            case "rejected":
                refusals.append("\(message["op"] ?? ""): \(message["reason"] ?? "")")
            default:
                break
            }
        }

        mutating func apply(diff: [String: Any]) {
            seq = diff["seq"] as? Int ?? seq
            let changes = diff["changes"] as? [String: [String: Any]] ?? [:]
            let moves = diff["moves"] as? [[String: Any]] ?? []
            for column in columns {
                var ids = cards[column] ?? []
                let deleted = (changes[column]?["deleted"] as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int }
                let movedOut = moves.filter { $0["from_column"] as? String == column }.compactMap { $0["from_index"] as? Int }
                for index in (deleted + movedOut).sorted(by: >) {
                    guard ids.indices.contains(index) else {
                        problems.append("seq \(seq): no index \(index) in \(column)")
                        continue
                    }
                    ids.remove(at: index)
                }
                cards[column] = ids
            }
            for column in columns {
                var ids = cards[column] ?? []
                var insertions: [(Int, String)] = (changes[column]?["inserted"] as? [[String: Any]] ?? []).compactMap {
                    guard let index = $0["index"] as? Int, let id = ($0["card"] as? [String: Any])?["id"] as? String else { return nil }
                    return (index, id)
                }
                insertions += moves.filter { $0["to_column"] as? String == column }.compactMap {
                    guard let index = $0["to_index"] as? Int, let id = ($0["card"] as? [String: Any])?["id"] as? String else { return nil }
                    return (index, id)
                }
                for (index, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
                    guard index <= ids.count else {
                        problems.append("seq \(seq): index \(index) past the end of \(column)")
                        continue
                    }
                    ids.insert(id, at: index)
                }
                cards[column] = ids
            }
        }
    }

    /// A page and its model, kept up to date with everything it is sent.
    final class Page {
        let probe: WebPageProbe
        var model = PageModel()

        init(_ probe: WebPageProbe) { self.probe = probe }

        func send(_ text: String) async throws { try await probe.send(text) }

        /// Reads until `done` holds for the model (every message read is applied on the way).
        func read(until done: (PageModel) -> Bool, timeout: Duration = .seconds(20)) async throws {
            if done(model) { return }
            try await read(untilMessage: { _, model in done(model) }, timeout: timeout)
        }

        /// Reads until `done` holds for a message read and the model after it.
        func read(untilMessage done: ([String: Any], PageModel) -> Bool, timeout: Duration = .seconds(20)) async throws {
            var model = self.model
            defer { self.model = model }
            _ = try await probe.next(
                where: { message in
                    model.take(message)
                    return done(message, model)
                }, timeout: timeout)
        }
    }

    @Test func pagesWithOwnChangesBetweenTheOthersEndWithTheServersBoard() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let bob = try await corkd.invite("bob").token
            // Everyone is a member before the pages open: a change of members is sent as a whole board.
            let tess = try await corkd.invite("tess")
            let pages = [
                Page(try await WebPageProbe.live(port: port, token: corkd.ownerToken)),
                Page(try await WebPageProbe.live(port: port, token: bob)),
            ]
            for page in pages {
                try await page.send(#"{"t":"open","board":"main"}"#)
                try await page.read { !$0.columns.isEmpty }
            }
            var configuration = try ClientConfiguration(invite: tess)
            configuration.announcesPresence = false
            try await withClient(configuration) { client in
                _ = try await client.ready(timeout: .seconds(20))
                let start = try #require(await client.board?.seq)
                for n in 1...6 {
                    _ = try await client.perform(.addCard(AddCard(card: CardID("k\(n)"), column: "todo", title: "card \(n)")))
                }
                var random = SplitRandom(seed: 7)
                let columns = ["todo", "doing", "done"]

                for step in 0..<120 {
                    let card = "k\(1 + random.next(below: 6))"
                    let column = columns[random.next(below: 3)]
                    switch step % 3 {
                    case 0, 1:
                        // A page's own change, sent without waiting for the last one.
                        try await pages[step % 3].send(#"{"t":"op","op":{"kind":"card.move","card":"\#(card)","to_column":"\#(column)"}}"#)
                    default:
                        _ = try await client.submit(.moveCard(card: CardID(card), column: ColumnID(column), placement: .top))
                    }

                    // Some go out together, some after the last ones committed.
                    if step % 8 == 7 { try await Task.sleep(for: .milliseconds(3)) }
                }
                // Each page's last change is a chat: once its own feed line is back, everything it sent before is
                // done (a session's ops are committed in order). Then one more change from the terminal, after all
                // of them, which every page must show with the rest.
                for (index, page) in pages.enumerated() {
                    try await page.send(#"{"t":"op","op":{"kind":"chat","text":"page \#(index) done"}}"#)
                    try await page.read(untilMessage: { message, _ in WebListenerTests.feedSays(message, "page \(index) done") })
                }
                _ = try await client.perform(.addCard(AddCard(card: "last", column: "done", title: "the last change")))
                let board = try #require(await client.board)
                for (index, page) in pages.enumerated() {
                    try await page.read { $0.seq >= Int(board.seq) }
                    #expect(page.model.problems.isEmpty, "page \(index): \(page.model.problems)")
                    #expect(page.model.boards == 1, "page \(index) was sent \(page.model.boards) whole boards")
                    #expect(page.model.refusals.isEmpty, "page \(index): \(page.model.refusals)")
                    #expect(page.model.ownChanges >= 6, "page \(index) saw \(page.model.ownChanges) changes of its own")
                    for column in board.columns.map(\.id) {
                        #expect(
                            page.model.cards[column.rawValue] == board.cardIDs(in: column).map(\.rawValue),
                            "page \(index), \(column): shows \(page.model.cards[column.rawValue] ?? []), the server has \(board.cardIDs(in: column))")
                    }
                }
            }
            for page in pages { await page.probe.close() }
        }
    }
}
