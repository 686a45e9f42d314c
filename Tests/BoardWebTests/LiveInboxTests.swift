import BoardCore
import Foundation
import Testing

@testable import BoardWeb

/// The inbox messages the web session sends the page (docs/web.md, "The `/live` channel"): Protocol.md's entry without
/// `user`, the time in milliseconds, and `cork inbox`'s sentence, the card by its number on the board shown.
@Suite struct LiveInboxTests {
    static func board() -> Board {
        var board = Board(id: "main", name: "Main", owner: "alice")
        for n in 1...3 {
            _ = board.apply(
                .addCard(AddCard(card: CardID("c\(n)"), column: "todo", placement: .bottom, title: "Card \(n)")),
                context: ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1), seq: UInt64(n)))
            board.seq = UInt64(n)
        }
        return board
    }

    static func json(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static let mention = InboxEntry(
        id: 17, user: "alice", board: "main", seq: 14, card: "c3", kind: .mention, actor: "bob",
        at: Timestamp(milliseconds: 1_767_261_700_000), text: "#3 Card 3: @alice can you look?")

    @Test func anEntryCarriesItsFieldsAndSentence() throws {
        let pushed = try Self.json(
            LiveMessage.InboxEntryPushed(entry: LiveMessage.InboxEntryView(Self.mention, on: Self.board()), unread: 2))
        #expect(pushed["t"] as? String == "inbox.entry")
        #expect(pushed["unread"] as? Int == 2)
        let entry = try #require(pushed["entry"] as? [String: Any])
        #expect(entry["id"] as? Int == 17)
        #expect(entry["board"] as? String == "main")
        #expect(entry["seq"] as? Int == 14)
        #expect(entry["card"] as? String == "c3")
        #expect(entry["kind"] as? String == "mention")
        #expect(entry["actor"] as? String == "bob")
        #expect(entry["at"] as? Int == 1_767_261_700_000)
        #expect(entry["text"] as? String == "#3 Card 3: @alice can you look?")
        #expect(entry["read"] as? Bool == false)
        #expect(entry["user"] == nil, "the page's own user is not repeated")
        #expect(entry["sentence"] as? String == "bob mentioned you on main #3: Card 3: @alice can you look?")
    }

    @Test func aCardOfAnotherBoardIsNamedByItsIdAndAChatMentionByItsBoard() throws {
        var elsewhere = Self.mention
        elsewhere.board = "ops"
        #expect(LiveMessage.InboxEntryView(elsewhere, on: Self.board()).sentence == "bob mentioned you on ops #3: Card 3: @alice can you look?")
        let chat = InboxEntry(
            id: 18, user: "alice", board: "main", seq: 15, card: nil, kind: .mention, actor: "carol",
            at: Timestamp(milliseconds: 5), text: "@alice <b>standup</b>")
        let view = try Self.json(LiveMessage.InboxEntryView(chat, on: Self.board()))
        #expect(view["card"] == nil)
        #expect(view["sentence"] as? String == "carol mentioned you on main: @alice <b>standup</b>")
    }

    @Test func aPageOfTheInboxAndAReadSayTheUnreadCount() throws {
        let board = Self.board()
        let page = try Self.json(
            LiveMessage.Inbox(
                unread: 1, entries: [LiveMessage.InboxEntryView(Self.mention, on: board)], before: nil, more: false, error: nil))
        #expect(page["t"] as? String == "inbox")
        #expect(page["unread"] as? Int == 1)
        #expect((page["entries"] as? [[String: Any]])?.map { $0["id"] as? Int } == [17])
        #expect(page["more"] as? Bool == false)
        #expect(page["before"] == nil && page["error"] == nil)
        let failed = try Self.json(LiveMessage.Inbox(unread: nil, entries: [], before: 12, more: false, error: "no inbox"))
        #expect(failed["unread"] == nil)
        #expect(failed["before"] as? Int == 12)
        #expect(failed["error"] as? String == "no inbox")
        let read = try Self.json(LiveMessage.InboxRead(ids: [12, 17], unread: 0))
        #expect(read["t"] as? String == "inbox.read")
        #expect(read["ids"] as? [Int] == [12, 17])
        #expect(read["unread"] as? Int == 0)
    }
}
