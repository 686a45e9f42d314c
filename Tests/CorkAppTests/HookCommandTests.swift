import BoardTesting
import Foundation
import Testing

/// `cork hook add|list|test|remove` against the real corkd and `Examples/webhook_receiver.py`: `--json`,
/// the made secret shown once, and the documented exit codes.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct HookCommandTests {
    static let secret = "cli-secret-0123456789"

    @Test func theOwnerAddsListsTestsAndRemovesHooksWithTheDocumentedExitCodes() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(options: ["--hooks-allow-http-loopback"])
        try await withHookReceiver(secret: Self.secret, logDirectory: corkd.logDirectory) { receiver in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            // Without --secret the server makes one and prints it once; the receiver does not know it (401: exit 1).
            let made = try await cork.json(["hook", "add", receiver.url, "--events", "card.*,comment.add"])
            let madeHook = try #require(made["hook"] as? String)
            #expect((made["secret"] as? String)?.count == 64, "\(made)")
            let refused = try await cork.fails(["hook", "test", madeHook], with: 1)
            #expect(refused.contains("HTTP 401"), "\(refused)")
            try await cork.ok(["hook", "remove", madeHook])

            let added = try await cork.json(["hook", "add", receiver.url, "--events", "card.*", "--secret", Self.secret])
            let hook = try #require(added["hook"] as? String)
            #expect(added["secret"] == nil && added["board"] as? String == "main", "\(added)")
            // The same URL for the same events again would deliver every change twice: refused, naming the hook
            // (events in another order are the same events).
            let twice = try await cork.fails(["hook", "add", receiver.url, "--events", "card.*", "--secret", Self.secret], with: 2)
            #expect(twice.contains("already has webhook \(hook)"), "\(twice)")
            let tested = try await cork.json(["hook", "test", hook])
            #expect(tested["delivered"] as? Bool == true && tested["status"] as? Int == 204, "\(tested)")
            #expect(await receiver.wait { $0.contains { $0.event == "hook.test" } }, "\(receiver.log)")

            _ = try await cork.json(["add", "Hooked"])
            #expect(await receiver.wait { $0.contains { $0.event == "card.add" } }, "\(receiver.log)")
            let listed = try await cork.json(["hook", "list"])
            let hooks = try #require(listed["hooks"] as? [[String: Any]])
            #expect(hooks.count == 1 && hooks[0]["hook"] as? String == hook && hooks[0]["secret"] == nil, "\(listed)")
            let text = try await cork.ok(["hook", "list"])
            #expect(text.contains(hook) && text.contains("  ok  ") && text.contains(receiver.url), "\(text)")

            // --query: only changes about cards that match it. The same URL and events with a query is another hook;
            // `hook list` shows the query; a query that does not parse is exit 2 with the parser's message.
            let queried = try await cork.json(
                ["hook", "add", receiver.url, "--events", "card.*", "--query", "label:incident", "--secret", Self.secret])
            let queryHook = try #require(queried["hook"] as? String, "\(queried)")
            let both = try #require(try await cork.json(["hook", "list"])["hooks"] as? [[String: Any]])
            #expect(both.count == 2 && both.first { $0["hook"] as? String == queryHook }?["query"] as? String == "label:incident", "\(both)")
            #expect(both.first { $0["hook"] as? String == hook }?["query"] == nil, "\(both)")
            let queryText = try await cork.ok(["hook", "list"])
            #expect(queryText.contains(#"events card.*  query "label:incident"  delivered"#), "\(queryText)")
            let badQuery = try await cork.fails(["hook", "add", receiver.url, "--events", "*", "--query", "lable:incident"], with: 2)
            #expect(badQuery.contains(#"field `query`: unknown filter "lable" at character 1 (did you mean label?)"#), "\(badQuery)")
            try await cork.ok(["hook", "remove", queryHook])

            // Bad input is exit 2 (the server says why), a missing hook 5, someone not the owner 3.
            #expect(try await cork.fails(["hook", "add", "https://10.0.0.1/", "--events", "*"], with: 2).contains("private"))
            #expect(try await cork.fails(["hook", "add", "https://example.com/", "--events", "nope.*"], with: 2).contains("events"))
            try await cork.fails(["hook", "add", "https://example.com/", "--events", "card.*,"], with: 2)
            try await cork.ok(["hook", "remove", hook])
            try await cork.fails(["hook", "remove", hook], with: 5)
            #expect(try await cork.ok(["hook", "list"]).contains("no webhooks on main"))
            let editor = try await corkd.invite("ed", role: "editor")
            try await cork.fails(["hook", "list"], with: 3, url: .some(editor.description))
        }
    }
}
