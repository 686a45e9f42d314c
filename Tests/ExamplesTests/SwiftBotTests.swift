import BoardTesting
import Foundation
import Testing

/// `Examples/SwiftBot` (the `cork-swift-bot` executable, built on BoardClient) against the real corkd.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct SwiftBotTests {
    static let executable = CorkdProcess.packageRoot.appendingPathComponent(".build/debug/cork-swift-bot")

    /// The next delta by `user` of op kind `kind`, skipping everything else (bounded).
    static func nextDelta(_ owner: OwnerSession, from user: String, kind: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard let message = try await owner.probe.nextObject() else { throw TestFailure("connection closed") }
            let op = message["op"] as? [String: Any]
            if message["type"] as? String == "delta", message["actor"] as? String == user, op?["kind"] as? String == kind {
                return message
            }
        }
        throw TestFailure("no \(kind) from \(user) within 30 s")
    }

    @Test func theBotClosesCardsThatReachDoneReopensThemAndSurvivesAKill() async throws {
        try await withCorkd { corkd in
            let owner = try await OwnerSession.open(corkd)
            let invite = try await corkd.invite("donebot", role: "bot")
            _ = try await Self.nextDelta(owner, from: "corkd", kind: "member.set")
            try await owner.apply(#"{"kind":"card.add","card":"k1","title":"Ship it"}"#)
            let journal = corkd.root.appendingPathComponent("donebot.json")
            let arguments = ["--url", "\(invite)", "--journal", journal.path]
            var bot = try SpawnedProcess(
                executable: Self.executable, arguments: arguments, logDirectory: corkd.logDirectory, name: "swift-bot-1",
                unprivileged: true)
            defer { bot.killAndReap() }
            let following = await bot.waitForOutput(containing: "following", timeout: .seconds(20))
            try #require(following, "the bot did not start: \(bot.standardOutput) \(bot.standardError)")

            try await owner.apply(#"{"kind":"card.move","card":"k1","to_column":"done"}"#)
            _ = try await Self.nextDelta(owner, from: "donebot", kind: "card.close")
            let comment = try await Self.nextDelta(owner, from: "donebot", kind: "comment.add")
            #expect((comment["op"] as? [String: Any])?["text"] as? String == "closed: it reached DONE")

            // Killed and restarted on its journal, it still reacts.
            bot.send(signal: SIGKILL)
            _ = await bot.waitForExit(timeout: .seconds(10))
            bot = try SpawnedProcess(
                executable: Self.executable, arguments: arguments, logDirectory: corkd.logDirectory, name: "swift-bot-2",
                unprivileged: true)
            let again = await bot.waitForOutput(containing: "following", timeout: .seconds(20))
            try #require(again, "the bot did not restart: \(bot.standardOutput) \(bot.standardError)")
            try await owner.apply(#"{"kind":"card.move","card":"k1","to_column":"doing"}"#)
            _ = try await Self.nextDelta(owner, from: "donebot", kind: "card.reopen")

            try await owner.chat("@donebot status")
            let status = try await owner.nextChat(from: "donebot")
            #expect(status == "TODO 0 · DOING 1 · DONE 0", "\(status)")
            await owner.close()
        }
    }
}
