import BoardClient
import BoardCore
import CorkApp
import Foundation
import Testing

/// `cork inbox`'s lines and JSON: the id, the unread mark, the time, and a sentence that names the board and the card
/// (by its number, or its id when nothing gives the number) without repeating what the server's text says.
@Suite struct InboxTextTests {
    /// 2026-11-29 10:41 UTC.
    static let at = Timestamp(milliseconds: 1_795_948_860_000)

    static func entry(
        _ id: Int64, kind: InboxEntry.Kind = .mention, board: BoardID = "main", card: CardID? = "k3",
        text: String = "#3 Ship it: @alice can you look?", read: Bool = false
    ) -> InboxEntry {
        InboxEntry(
            id: id, user: "alice", board: board, seq: 40, card: card, kind: kind, actor: "bob", at: at, text: text,
            read: read)
    }

    static let board = TUIModelTests.board()

    @Test func aLineHasTheIdTheMarkTheTimeAndTheSentence() {
        #expect(
            InboxText.line(Self.entry(12), on: Self.board)
                == "  12 • 2026-11-29 10:41 UTC bob mentioned you on main #3: Ship it: @alice can you look?")
        #expect(
            InboxText.line(Self.entry(11, read: true), on: Self.board)
                == "  11   2026-11-29 10:41 UTC bob mentioned you on main #3: Ship it: @alice can you look?")
    }

    @Test(arguments: [
        (InboxEntry.Kind.assigned, "assigned you to #3 Ship it", "bob assigned you to main #3: Ship it"),
        (.comment, "#3 Ship it: looks good", "bob commented on main #3: Ship it: looks good"),
        (.moved, #"moved #3 "Ship it" DOING → DONE"#, #"bob moved main #3: "Ship it" DOING → DONE"#),
        (.mention, "#3 Ship it (description)", "bob mentioned you on main #3: Ship it (description)"),
        (
            .unblocked, "#3 Ship it is no longer blocked: #1 Fix login is done",
            "bob unblocked main #3: Ship it is no longer blocked: #1 Fix login is done"
        ),
        // Reminders come from the server, not a person.
        (.overdue, "#3 Ship it is overdue (due 2026-11-20)", "reminder for main #3: Ship it is overdue (due 2026-11-20)"),
        (.dueSoon, "#3 Ship it is due today", "reminder for main #3: Ship it is due today"),
        // A kind a newer server added: where, and the server's text.
        (InboxEntry.Kind(rawValue: "reacted"), "#3 Ship it: 👍", "bob on main #3: Ship it: 👍"),
    ])
    func eachKindReadsAsASentence(kind: InboxEntry.Kind, text: String, sentence: String) {
        #expect(InboxText.sentence(Self.entry(1, kind: kind, text: text), on: Self.board) == sentence)
    }

    @Test func cardsElsewhereShowByTheNumberTheTextGivesAndChatMentionsByBoard() {
        // Another board than the one connected to (or none): the number the server's text starts with, said once
        // (it read `ops id:x4: #7 Rotate keys`).
        let elsewhere = Self.entry(3, kind: .assigned, board: "ops", card: "x4", text: "assigned you to #7 Rotate keys")
        #expect(InboxText.sentence(elsewhere, on: Self.board) == "bob assigned you to ops #7: Rotate keys")
        #expect(InboxText.sentence(Self.entry(4), on: nil) == "bob mentioned you on main #3: Ship it: @alice can you look?")
        let reminder = Self.entry(8, kind: .dueSoon, board: "ops", card: "cg1", text: #"#1 "Rotate certs" is due today"#)
        #expect(InboxText.sentence(reminder, on: Self.board) == #"reminder for ops #1: "Rotate certs" is due today"#)
        // A card no longer on the board: the number it had, from the text.
        #expect(InboxText.place(Self.entry(5, card: "gone"), on: Self.board) == "main #3")
        // A text that does not start with the card's number (written before the texts named the card): its id.
        let older = Self.entry(9, board: "ops", card: "x4", text: "Rotate keys: @alice can you look?")
        #expect(InboxText.sentence(older, on: Self.board) == "bob mentioned you on ops id:x4: Rotate keys: @alice can you look?")
        let chat = Self.entry(6, card: nil, text: "standup in 5 @alice")
        #expect(InboxText.sentence(chat, on: Self.board) == "bob mentioned you on main: standup in 5 @alice")
        // Control characters never reach the terminal.
        let sneaky = Self.entry(7, card: nil, text: "hi\u{1B}[2J there")
        #expect(InboxText.sentence(sneaky, on: Self.board) == "bob mentioned you on main: hi [2J there")
    }

    @Test func theListIsNewestFirstWithAlignedIds() {
        let entries = [Self.entry(9, read: true), Self.entry(12_345), Self.entry(10)]
        let lines = InboxText.list(entries, on: Self.board, unreadOnly: false).split(separator: "\n").map(String.init)
        #expect(lines.map { $0.prefix(7) } == ["12345 •", "   10 •", "    9  "])
        #expect(InboxText.list([], on: nil, unreadOnly: false) == "your inbox is empty\n")
        #expect(InboxText.list([], on: nil, unreadOnly: true) == "no unread entries in your inbox\n")
    }

    @Test func theJSONHasTheEntriesInTheProtocolsShapeAndTheUnreadCount() throws {
        let line = CorkJSON.line(CorkJSON.Inbox(entries: [Self.entry(12), Self.entry(6, card: nil, read: true)], unread: 2))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["unread"] as? Int == 2)
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.map { $0["id"] as? Int } == [12, 6])
        #expect(entries[0]["kind"] as? String == "mention" && entries[0]["card"] as? String == "k3")
        #expect(entries[0]["at"] as? Int == 1_795_948_860_000 && entries[0]["read"] as? Bool == false)
        #expect(entries[1]["card"] == nil && entries[1]["read"] as? Bool == true)
        #expect(Set(entries[0].keys) == ["id", "user", "board", "seq", "card", "kind", "actor", "at", "text", "read"])
    }
}
