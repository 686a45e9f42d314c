import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Examples/python_bot.py` against the real corkd: the owner chats `@bot …` on `main` and the bot answers.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct PythonBotTests {
    /// `Examples/python_bot.py`.
    static let script = CorkdProcess.packageRoot.appendingPathComponent("Examples/python_bot.py")

    @Test func theBotAnswersMentionsAndPostsASummaryOnDemand() async throws {
        let python = try SpawnedProcess.tool("python3")
        try await withCorkd { corkd in
            let invite = try await corkd.invite("bot", role: "bot")
            let owner = try await OwnerSession.open(corkd)
            // #1 is overdue; #2 has no due date; #3 is due far ahead; #4 is overdue but closed.
            try await owner.apply(#"{"kind":"milestone.create","milestone":"v1","title":"v1.0","due":"2030-03-01"}"#)
            try await owner.apply(#"{"kind":"card.add","card":"c-late","title":"Renew the certificate","due":"2020-01-15","milestone":"v1"}"#)
            try await owner.apply(#"{"kind":"card.add","card":"c-undated","title":"Write the release notes"}"#)
            try await owner.apply(#"{"kind":"card.add","card":"c-future","title":"Plan the next decade","due":"2999-12-31"}"#)
            try await owner.apply(#"{"kind":"card.add","card":"c-done","title":"Rotate the keys","due":"2020-01-01","milestone":"v1"}"#)
            try await owner.apply(#"{"kind":"card.close","card":"c-done"}"#)

            let bot = try SpawnedProcess(
                executable: python, arguments: [PythonBotTests.script.path, "--url", "\(invite)"],
                logDirectory: corkd.logDirectory, name: "python-bot")
            defer { bot.killAndReap() }
            // It must be following the board before the owner asks (a fresh subscribe replays no chat).
            let following = await bot.waitForOutput(containing: "following main", timeout: .seconds(20))
            try #require(following, "the bot did not subscribe; stdout: \(bot.standardOutput) stderr: \(bot.standardError)")

            try await owner.chat("@bot overdue")
            let overdue = try await owner.nextChat(from: "bot")
            #expect(overdue.hasPrefix("@\(owner.user) 1 overdue on Main"), "\(overdue)")
            #expect(overdue.contains(#"#1 "Renew the certificate" due 2020-01-15 (TODO)"#), "\(overdue)")
            for absent in ["Write the release notes", "Plan the next decade", "Rotate the keys"] {
                #expect(!overdue.contains(absent), "\(absent) is not overdue: \(overdue)")
            }

            try await owner.chat("what now, @bot summary please")
            let summary = try await owner.nextChat(from: "bot")
            #expect(summary.hasPrefix("@\(owner.user) summary of Main"), "\(summary)")
            #expect(summary.contains("4 cards") && summary.contains("TODO 4 · DOING 0 · DONE 0"), "\(summary)")
            #expect(summary.contains("overdue 1 · closed 1"), "\(summary)")
            #expect(summary.contains("milestone v1.0: 1/2 closed, due 2030-03-01"), "\(summary)")

            try await owner.chat("@bot dance")
            let hint = try await owner.nextChat(from: "bot")
            #expect(hint.contains("@bot help"), "\(hint)")
            try await owner.chat("@bot help")
            let help = try await owner.nextChat(from: "bot")
            #expect(help.contains("@bot overdue") && help.contains("@bot summary"), "\(help)")

            // The cron job: one summary, exit 0 (the URL from $CORK_URL this time).
            let once = try await SpawnedProcess.run(
                try SpawnedProcess.tool("env"),
                ["CORK_URL=\(invite)", python.path, PythonBotTests.script.path, "--summary"], timeout: .seconds(30),
                logDirectory: corkd.logDirectory, name: "python-bot-summary")
            #expect(once.exit.isSuccess, "--summary: \(once.exit); \(once.standardError)")
            let daily = try await owner.nextChat(from: "bot")
            #expect(daily.hasPrefix("summary of Main") && daily.contains("overdue 1 · closed 1"), "\(daily)")

            // SIGTERM: bye and exit 0; nothing went to stderr on the way.
            bot.send(signal: SIGTERM)
            let exit = await bot.waitForExit(timeout: .seconds(10))
            #expect(exit?.isSuccess == true, "after SIGTERM: \(exit?.description ?? "still running")")
            #expect(bot.standardError.isEmpty, "\(bot.standardError)")
            await owner.close()
        }
    }

    @Test func theBotRefusesAnUnverifiedServerAndABadTokenWithoutRetrying() async throws {
        let python = try SpawnedProcess.tool("python3")
        try await withCorkd { corkd in
            var invite = try await corkd.invite("bot", role: "bot")
            invite.fingerprint = "sha256:" + String(repeating: "0", count: 64)
            let pinned = try await SpawnedProcess.run(
                python, [PythonBotTests.script.path, "--url", "\(invite)"], timeout: .seconds(20),
                logDirectory: corkd.logDirectory, name: "python-bot-wrong-pin")
            #expect(pinned.exit.reason == .exit && pinned.exit.status == 1, "\(pinned.exit)")
            #expect(pinned.standardError.contains("certificate fingerprint mismatch"), "\(pinned.standardError)")
            #expect(!pinned.standardOutput.contains("connected"), "\(pinned.standardOutput)")

            // Without fp the certificate must verify against the system CAs; a self-signed one does not.
            invite.fingerprint = nil
            let unpinned = try await SpawnedProcess.run(
                python, [PythonBotTests.script.path, "--url", "\(invite)"], timeout: .seconds(20),
                logDirectory: corkd.logDirectory, name: "python-bot-unpinned")
            #expect(unpinned.exit.reason == .exit && unpinned.exit.status == 1, "\(unpinned.exit)")
            #expect(unpinned.standardError.contains("does not verify"), "\(unpinned.standardError)")

            invite.fingerprint = try corkd.pinned().description
            invite.token = "ck_" + String(repeating: "A", count: 43)
            let token = try await SpawnedProcess.run(
                python, [PythonBotTests.script.path, "--url", "\(invite)"], timeout: .seconds(20),
                logDirectory: corkd.logDirectory, name: "python-bot-bad-token")
            #expect(token.exit.reason == .exit && token.exit.status == 1, "\(token.exit)")
            #expect(token.standardError.contains("auth_failed"), "\(token.standardError)")
        }
    }
}
