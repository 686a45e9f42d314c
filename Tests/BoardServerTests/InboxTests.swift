import BoardCore
import BoardTesting
import Foundation
import Testing

@testable import BoardServer

/// The inbox over the wire: bob mentions alice, her `inbox` lists it, each of her sessions is sent `inbox.entry`,
/// `inbox.read` marks it read on all of them; a restart derives nothing twice.
@Suite(.timeLimit(.minutes(2))) struct InboxTests {
    /// Sends a chat line as a user the admin queue may not have made a member yet: again until it is acked; its seq.
    static func chat(_ text: String, from probe: WireProbe, mut: inout Int) async throws -> Int {
        for _ in 0..<200 {
            mut += 1
            try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(text)"}}"#)
            while true {
                guard let line = try await probe.nextObject() else { throw TestFailure("closed") }
                if line["type"] as? String == "ack", let seq = line["seq"] as? Int { return seq }
                if line["type"] as? String == "reject" { break }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("never a member")
    }

    /// The next line of `type` from `probe`, skipping everything else.
    static func next(_ type: String, from probe: WireProbe) async throws -> [String: Any] {
        let noise: Set<String> = ["ping", "delta", "presence", "presence.state", "presence.left", "ack", "subscribed", "snapshot", "inbox.read", "inbox.entry"]
        return try await probe.expect(type: type, skipping: noise.subtracting([type]))
    }

    @Test func aMentionReachesTheInboxAndEverySessionAndIsReadOnce() async throws {
        try await withTestServer { server in
            let bobToken = try await server.invite("bob")
            // The owner's token is alice's in this test: the owner is "owner".
            let phone = try await server.connect()
            let laptop = try await server.connect()
            let bob = try await server.connect(token: bobToken)
            // bob may post once the admin queue made him a member.
            var mut = 0
            let seq = try await Self.chat("@owner standup in 5", from: bob, mut: &mut)
            #expect(seq > 0)
            for probe in [phone, laptop] {
                let pushed = try await Self.next("inbox.entry", from: probe)
                let entry = try #require(pushed["entry"] as? [String: Any])
                #expect(entry["kind"] as? String == "mention", "\(pushed)")
                #expect(entry["actor"] as? String == "bob" && entry["text"] as? String == "@owner standup in 5")
                #expect(entry["read"] as? Bool == false && entry["seq"] as? Int == seq && entry["card"] == nil)
                #expect(pushed["unread"] as? Int == 1)
            }

            try await phone.send(#"{"type":"inbox","req":1,"unread":true}"#)
            let page = try await Self.next("inbox", from: phone)
            let entries = try #require(page["entries"] as? [[String: Any]])
            #expect(entries.count == 1 && page["unread"] as? Int == 1 && page["req"] as? Int == 1)
            let id = try #require(entries.first?["id"] as? Int)

            try await phone.send(#"{"type":"inbox.read","req":2,"ids":[\#(id)]}"#)
            #expect(try await Self.next("ok", from: phone)["req"] as? Int == 2)
            for probe in [phone, laptop] {
                let read = try await Self.next("inbox.read", from: probe)
                #expect(read["ids"] as? [Int] == [id] && read["unread"] as? Int == 0, "\(read)")
            }
            try await laptop.send(#"{"type":"inbox","req":3,"unread":true}"#)
            let after = try await Self.next("inbox", from: laptop)
            #expect((after["entries"] as? [Any])?.isEmpty == true && after["unread"] as? Int == 0)
            try await laptop.send(#"{"type":"inbox","req":4}"#)
            let all = try await Self.next("inbox", from: laptop)
            #expect((all["entries"] as? [[String: Any]])?.first?["read"] as? Bool == true)

            // bob's own inbox is empty: nobody told him anything.
            try await bob.send(#"{"type":"inbox","req":5}"#)
            #expect((try await Self.next("inbox", from: bob)["entries"] as? [Any])?.isEmpty == true)
            try await bob.send(#"{"type":"inbox.read","req":6}"#)
            let refused = try await Self.next("error", from: bob)
            #expect(refused["code"] as? String == "bad_request" && refused["req"] as? Int == 6, "\(refused)")
            for probe in [phone, laptop, bob] { await probe.close() }
        }
    }

    /// A mail level is kept only for a board the user can read: one for a board that is not there was stored and
    /// listed as if it meant something. Removing one always works.
    @Test func aBoardLevelNeedsABoardTheUserCanRead() async throws {
        try await withTestServer { server in
            let owner = try await server.connect()
            try await owner.send(#"{"type":"notify","req":1,"board":"main","board_level":"all"}"#)
            let set = try await Self.next("notify", from: owner)
            #expect((set["settings"] as? [String: Any])?["boards"] as? [String: String] == ["main": "all"], "\(set)")
            try await owner.send(#"{"type":"notify","req":2,"board":"nosuch","board_level":"none"}"#)
            let refused = try await Self.next("error", from: owner)
            #expect(refused["code"] as? String == "not_found" && refused["req"] as? Int == 2, "\(refused)")
            try await owner.send(#"{"type":"notify","req":3,"board":"nosuch","board_level":null}"#)
            let after = try await Self.next("notify", from: owner)
            #expect((after["settings"] as? [String: Any])?["boards"] as? [String: String] == ["main": "all"], "\(after)")
            await owner.close()
        }
    }

    /// A refused address is quoted with its control characters escaped: `cork notify` prints the message to a
    /// terminal, which obeyed the escape sequences and the line break of the address as typed.
    @Test func aRefusedAddressIsQuotedWithItsControlCharactersEscaped() async throws {
        try await withTestServer { server in
            let owner = try await server.connect()
            try await owner.send(#"{"type":"notify","req":1,"email":"a\u001b[31mred@x.com\nInjected: yes"}"#)
            let refused = try await Self.next("error", from: owner)
            let message = try #require(refused["message"] as? String)
            #expect(refused["code"] as? String == "bad_request", "\(refused)")
            #expect(!message.unicodeScalars.contains { $0.value < 0x20 }, "\(message.debugDescription)")
            #expect(message.hasSuffix(#"not a mail address: "a\u001b[31mred@x.com\nInjected: yes""#), "\(message)")
            await owner.close()
        }
    }

    @Test func theStoreKeepsEachEntryOnceAndTheCursorNeverGoesBack() async throws {
        try await withTestServer { server in
            let store = server.store
            let entry = InboxEntry(
                user: "owner", board: "main", seq: 5, card: nil, kind: .mention, actor: "bob", at: Timestamp(milliseconds: 9),
                text: "hi")
            let first = try await store.addInboxEntries([entry], board: "main", through: 5)
            #expect(first.count == 1 && first[0].id > 0)
            let again = try await store.addInboxEntries([entry], board: "main", through: 3)
            #expect(again.isEmpty)
            #expect(try await store.inboxCursor(board: "main") ?? 0 >= 5)
            #expect(try await store.inboxEntries(after: 0, limit: 10).contains { $0.key == entry.key })
            #expect(try await store.markInboxRead(user: "owner", ids: nil, at: Timestamp(milliseconds: 10)).contains(first[0].id))
            #expect(try await store.markInboxRead(user: "owner", ids: [first[0].id], at: Timestamp(milliseconds: 11)).isEmpty)
            #expect(try await store.unreadCount(user: "owner") == 0)
        }
    }

    /// Reminders on a hand-moved clock: nothing two days before, `due_soon` the day before, `overdue` after the day,
    /// each once however many scans pass.
    @Test func dueDatesRemindTheWatchersOncePerThreshold() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock, configure: { $0.reminderScanInterval = .milliseconds(50) }) { server in
            let owner = try await server.connect()
            let due = clock.now().day.adding(days: 2)
            try await owner.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"r1","title":"Renew the certificate","due":"\#(due)"}}"#)
            _ = try await owner.expect(type: "ack", skipping: ["ping", "presence", "presence.state"])
            func inbox() async throws -> [[String: Any]] {
                try await owner.send(#"{"type":"inbox","req":9}"#)
                return try await Self.next("inbox", from: owner)["entries"] as? [[String: Any]] ?? []
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await inbox().isEmpty, "two days before its due day a card is not due soon")

            clock.advance(by: 86_400_000)
            let soon = try #require(try await Self.next("inbox.entry", from: owner)["entry"] as? [String: Any])
            #expect(soon["kind"] as? String == "due_soon" && soon["actor"] as? String == "corkd", "\(soon)")
            #expect(soon["text"] as? String == "#1 \"Renew the certificate\" is due \(due)")

            clock.advance(by: 2 * 86_400_000)
            let late = try #require(try await Self.next("inbox.entry", from: owner)["entry"] as? [String: Any])
            #expect(late["kind"] as? String == "overdue", "\(late)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await inbox().map { $0["kind"] as? String } == ["overdue", "due_soon"], "each threshold once")
            await owner.close()
        }
    }
}
