import BoardClientCore
import BoardCore
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import BoardWeb

/// The views the web sessions of one board share: a change is encoded once and written to every attached page, a
/// detached page gets nothing from the view, and a page attaches only when it shows what the view shows.
@Suite struct BoardViewsTests {
    static let t0 = Timestamp(milliseconds: 1_767_225_600_000)

    static func board() -> Board {
        var board = Board(id: "main", name: "Main", owner: "alice")
        for n in 1...3 {
            let context = ApplyContext(actor: "alice", role: .owner, now: t0, seq: UInt64(n))
            board = try! board.applying(.addCard(AddCard(card: CardID("c\(n)"), column: "todo", title: "card \(n)")), context: context)
                .get().board
            board.seq = UInt64(n)
        }
        return board
    }

    static func moved(_ board: Board, _ card: CardID, to column: ColumnID) -> (Board, BoardChanges) {
        let op = Op.moveCard(card: card, column: column, placement: .bottom)
        let changes = BoardChanges.of(op, on: board)
        var next = try! board.applying(op, context: ApplyContext(actor: "bob", role: .owner, now: t0, seq: board.seq + 1))
            .get().board
        next.seq = board.seq + 1
        return (next, changes)
    }

    /// The lines written to a page so far, as JSON objects.
    static func written(_ channel: EmbeddedChannel) throws -> [[String: Any]] {
        channel.embeddedEventLoop.run()
        var lines: [[String: Any]] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let object = try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
            lines.append(try #require(object))
        }
        return lines
    }

    static func encode(_ message: any Encodable) -> ByteBuffer? {
        guard let data = try? JSONEncoder().encode(message) else { return nil }
        return ByteBuffer(bytes: data + [UInt8(ascii: "\n")])
    }

    @Test func oneChangeIsWrittenToEveryAttachedPageAndOnlyOnce() throws {
        let views = BoardViews()
        let channels = [EmbeddedChannel(), EmbeddedChannel(), EmbeddedChannel()]
        let pages = channels.map { PageOutbox(channel: $0) }
        let board = Self.board()
        for page in pages {
            views.join("main")
            #expect(views.attach(page, board: "main", seq: board.seq, shown: LiveSession.Shown(board)))
        }
        // The third page shows an own change: detached, what it shows comes back to its session.
        let handedBack = views.detach(pages[2].id, board: "main")
        #expect(handedBack == LiveSession.Shown(board))
        #expect(views.attachedCount("main") == 2)

        let (next, changes) = Self.moved(board, "c1", to: "doing")
        var encodings = 0
        views.advance(next, changes: changes) { encodings += 1; return Self.encode($0) }
        // The sessions of the other pages see the same board later: nothing more is encoded or sent.
        views.advance(next, changes: changes) { encodings += 1; return Self.encode($0) }
        #expect(encodings == 1)
        for channel in channels[0...1] {
            let lines = try Self.written(channel)
            #expect(lines.count == 1)
            #expect(lines.first?["t"] as? String == "diff")
            #expect(lines.first?["seq"] as? Int == Int(next.seq))
            let moves = lines.first?["moves"] as? [[String: Any]]
            #expect(moves?.first?["to_column"] as? String == "doing")
        }
        #expect(try Self.written(channels[2]).isEmpty, "a detached page gets nothing from the view")
    }

    @Test func aPageAttachesOnlyWhenItShowsWhatTheViewShows() {
        let views = BoardViews()
        let board = Self.board()
        let (next, _) = Self.moved(board, "c2", to: "done")
        let first = PageOutbox(channel: EmbeddedChannel())
        let late = PageOutbox(channel: EmbeddedChannel())
        views.join("main")
        views.join("main")
        #expect(views.attach(first, board: "main", seq: next.seq, shown: LiveSession.Shown(next)))
        #expect(!views.attach(late, board: "main", seq: board.seq, shown: LiveSession.Shown(board)), "an older board")
        var other = LiveSession.Shown(next)
        other.cards["todo"]?.reverse()
        #expect(!views.attach(late, board: "main", seq: next.seq, shown: other), "the same seq shown otherwise")
        #expect(views.attach(late, board: "main", seq: next.seq, shown: LiveSession.Shown(next)))
        #expect(views.attachedCount("main") == 2)
    }

    @Test func aChangeNoDiffCarriesSendsTheWholeBoard() throws {
        let views = BoardViews()
        let channel = EmbeddedChannel()
        let board = Self.board()
        views.join("main")
        #expect(views.attach(PageOutbox(channel: channel), board: "main", seq: board.seq, shown: LiveSession.Shown(board)))
        var renamed = board
        renamed.name = "Renamed"
        renamed.seq += 1
        views.advance(renamed, changes: .everything, encode: Self.encode)
        let lines = try Self.written(channel)
        #expect(lines.map { $0["t"] as? String } == ["board"])
        #expect((lines.first?["board"] as? [String: Any])?["name"] as? String == "Renamed")
    }

    @Test func theLastSessionOfABoardForgetsItsSharedBoard() {
        let views = BoardViews()
        var board = Self.board()
        views.boards.offer(board, epoch: "e")
        let page = PageOutbox(channel: EmbeddedChannel())
        views.join("main")
        views.join("main")
        #expect(views.attach(page, board: "main", seq: board.seq, shown: LiveSession.Shown(board)))
        views.leave("main", page: page.id)
        #expect(views.boards.board("main", epoch: "e", seq: board.seq) != nil, "another session still shows it")
        views.leave("main", page: ObjectIdentifier(EmbeddedChannel()))
        #expect(views.boards.count == 0)
        board.seq += 1
        #expect(views.attachedCount("main") == 0)
    }
}
