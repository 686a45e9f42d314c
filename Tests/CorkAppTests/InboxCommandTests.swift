import BoardTesting
import Foundation
import Testing

/// `cork inbox` against the real corkd: what bob does to the owner's card lands in the owner's inbox, listed newest
/// first, marked read with `--mark-read` / `--all-read`, as JSON with `--json`.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct InboxCommandTests {
    /// `cork inbox --json` until it lists `count` entries (the server derives them once the change is committed);
    /// bounded.
    static func entries(_ count: Int, of cork: CorkProcess) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let inbox = try await cork.json(["inbox"])
            if (inbox["entries"] as? [Any])?.count == count || ContinuousClock.now >= deadline { return inbox }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func theOwnerReadsMarksAndPrintsTheirInbox() async throws {
        try await withCorkd { corkd in
            let owner = try CorkProcess(corkd, url: corkd.ownerURL, configName: "owner")
            let bobURL = try await corkd.invite("bob")
            let bob = try CorkProcess(corkd, url: bobURL.description, configName: "bob")
            try await owner.ok(["add", "Ship it"])
            // The owner created #1, so watches it: a mention, then a move.
            try await bob.ok(["comment", "#1", "@owner can you look?"])
            try await bob.ok(["move", "#1", "DOING"])

            let inbox = try await Self.entries(2, of: owner)
            let entries = try #require(inbox["entries"] as? [[String: Any]], "\(inbox)")
            #expect(entries.map { $0["kind"] as? String } == ["moved", "mention"], "\(inbox)")
            #expect(inbox["unread"] as? Int == 2)
            #expect(entries.allSatisfy { $0["actor"] as? String == "bob" && $0["board"] as? String == "main" })

            // Newest first, unread marked, the card by its number on the board connected to.
            let text = try await owner.ok(["inbox"]).split(separator: "\n").map(String.init)
            #expect(text.count == 2, "\(text)")
            #expect(text.first?.contains(" • ") == true, "\(text)")
            #expect(text.first?.hasSuffix(#"bob moved main #1: "Ship it" TODO → DOING"#) == true, "\(text)")
            #expect(text.last?.hasSuffix("bob mentioned you on main #1: \"Ship it\": @owner can you look?") == true, "\(text)")

            // A full list with older entries behind it says how to list them, and --before does.
            let first = try await owner.ok(["inbox", "--limit", "1"]).split(separator: "\n").map(String.init)
            let newestID = try #require(entries.first?["id"] as? Int)
            #expect(first.count == 2 && first[1] == "older entries: cork inbox --limit 1 --before \(newestID)", "\(first)")
            // --json says so too, for a script (it had no sign of an older page).
            #expect(try await owner.json(["inbox", "--limit", "1"])["more"] as? Bool == true)
            #expect(try await owner.json(["inbox", "--limit", "2"])["more"] as? Bool == false)
            let older = try await owner.ok(["inbox", "--limit", "1", "--before", "\(newestID)"])
            #expect(older.contains("mentioned you") && !older.contains("older entries"), "\(older)")
            let oldestID = try #require(entries.last?["id"] as? Int)
            #expect(try await owner.ok(["inbox", "--before", "\(oldestID)"]) == "nothing older than entry \(oldestID) in your inbox\n")

            // --limit 1 --mark-read reads only what it listed.
            let marked = try await owner.ok(["inbox", "--unread", "--limit", "1", "--mark-read"])
            #expect(marked.hasSuffix("marked 1 entry read\n") && marked.contains("moved"), "\(marked)")
            let left = try await owner.json(["inbox", "--unread"])
            #expect((left["entries"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["mention"], "\(left)")
            #expect(left["unread"] as? Int == 1)

            let all = try await owner.json(["inbox", "--all-read"])
            #expect(all["unread"] as? Int == 0, "\(all)")
            #expect(try await owner.ok(["inbox", "--unread"]) == "no unread entries in your inbox\n")
            let read = try await owner.json(["inbox"])
            #expect((read["entries"] as? [[String: Any]])?.allSatisfy { $0["read"] as? Bool == true } == true, "\(read)")

            // Bob made the changes: nothing for him.
            #expect(try await bob.ok(["inbox"]) == "your inbox is empty\n")
            try await owner.fails(["inbox", "--limit", "0"], with: 2)
            // Both markings at once is a usage error, not the wider one quietly.
            let both = try await owner.fails(["inbox", "--mark-read", "--all-read"], with: 2)
            #expect(both.contains("give one"), "\(both)")
        }
    }
}
