import BoardClient
import BoardCore
import BoardTesting
import CorkApp
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a script sees when things go wrong (the bot author's audit): each failure has the exit code docs/scripting.md's table
/// promises, and a refused command changes nothing.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct CorkScriptFailureTests {
    /// Removed from the board while `watch` runs: it says so and ends with exit 5, instead of following nothing.
    @Test func watchEndsWithNotFoundWhenItsUserIsRemovedFromTheBoard() async throws {
        try await withCorkd { corkd in
            let erin = try await corkd.invite("erin", role: "editor")
            let cork = try CorkProcess(corkd, url: erin.description)
            try await cork.ok(["say", "erin is in"])
            let watch = try await cork.watching(name: "cork-watch-removed")
            defer { watch.killAndReap() }
            let owner = try CorkProcess(corkd, url: corkd.ownerURL, configName: "owner")
            try await owner.ok(["member", "remove", "erin"])
            let exit = await watch.waitForExit(timeout: .seconds(20))
            #expect(exit?.reason == .exit && exit?.status == 5, "\(exit?.description ?? "still running"); \(watch.standardError)")
            #expect(watch.standardError.contains("not_found"), "\(watch.standardError)")
        }
    }

    /// A token revoked while `watch` runs is exit 4, as a revoked token at the start is.
    @Test func watchEndsWithCannotConnectWhenItsTokenIsRevoked() async throws {
        try await withCorkd { corkd in
            let frank = try await corkd.invite("frank", role: "editor")
            let cork = try CorkProcess(corkd, url: frank.description)
            try await cork.ok(["say", "frank is in"])
            let watch = try await cork.watching(name: "cork-watch-revoked")
            defer { watch.killAndReap() }
            let revoke = try await corkd.admin(["revoke", "--user", "frank"])
            #expect(revoke.exit.isSuccess, "\(revoke.standardError)")
            #expect(!revoke.standardError.contains("no token left"), "\(revoke.standardError)")
            // A misspelt name revokes nothing and fails (exit 5, not found): an offboarding script must not go on as if
            // it had worked. Revoking again is safe and says so.
            let typo = try await corkd.admin(["revoke", "--user", "frnak"])
            #expect(typo.exit.reason == .exit && typo.exit.status == 5 && typo.standardOutput.isEmpty, "\(typo)")
            #expect(typo.standardError.contains("no user frnak on this server: nothing was revoked"), "\(typo.standardError)")
            let again = try await corkd.admin(["revoke", "--user", "frank"])
            #expect(again.exit.isSuccess && again.standardOutput == "revoked 0 token(s) of frank\n", "\(again)")
            #expect(again.standardError.contains("frank had no token left to revoke: revoked already"), "\(again.standardError)")
            let exit = await watch.waitForExit(timeout: .seconds(20))
            #expect(exit?.reason == .exit && exit?.status == 4, "\(exit?.description ?? "still running"); \(watch.standardError)")
            #expect(watch.standardError.contains("token_revoked"), "\(watch.standardError)")
            // Said once, as the error line (it came as "cork: stopped: …" and then the error again).
            #expect(watch.standardError.components(separatedBy: "your access was revoked").count == 2, "\(watch.standardError)")
        }
    }

    /// A text past its limit is `too_large` (exit 3) however long it is: past the wire's `string_max` (16 KiB) the
    /// server could only say `bad_request`, past `line_max` (64 KiB) it closes the connection. And a refused
    /// `cork add` creates none of the labels it names.
    @Test func aRefusedCommandIsExit3AndChangesNothing() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Target"])
            for bytes in [9_000, 20_000, 70_000] {
                let stderr = try await cork.fails(["comment", "#1", String(repeating: "y", count: bytes)], with: 3)
                #expect(stderr.contains("too_large: comment is longer than 8192 bytes"), "\(bytes) bytes: \(stderr)")
            }
            let description = try await cork.fails(["edit", "#1", "--desc", String(repeating: "d", count: 17_000)], with: 3)
            #expect(description.contains("too_large"), "\(description)")
            let title = try await cork.fails(["add", "two\nlines", "--label", "orphan"], with: 3)
            #expect(title.contains("invalid: title must be one line"), "\(title)")
            let shown = try await cork.ok(["show", "--json"])
            #expect(shown.contains("Target") && !shown.contains("orphan"), "the refused add created its label: \(shown)")
            let history = try await cork.ok(["history", "--limit", "5"])
            #expect(!history.contains("orphan") && !history.contains("yyyy"), "\(history)")
        }
    }

    /// A port that takes the TCP connection and never answers TLS is "cannot connect" (exit 4): nothing was sent.
    @Test func aServerThatNeverAnswersIsCannotConnect() async throws {
        try await withCorkd { corkd in
            let silent = try LoopbackPort.listening()
            defer { close(silent.descriptor) }
            let url = corkd.ownerURL.replacingOccurrences(of: ":\(corkd.port)/", with: ":\(silent.port)/")
            let cork = try CorkProcess(corkd, url: url)
            let stderr = try await cork.fails(["add", "never sent"], with: 4)
            #expect(stderr.contains("is corkd running there"), "\(stderr)")
        }
    }

    /// A login the server could not check (`storage_busy`: its database is down) is tried again, and is exit 4 once
    /// the time is up: it had been exit 1, "something else failed", at once.
    @Test func aLoginTheServerCouldNotCheckIsTriedAgainThenExitFour() throws {
        var busy = WireError(.storageBusy, "the server could not check the token: its store cannot be read now; try again", retryAfterMs: 1_000)
        busy.closesConnection = true
        let failure = try #require(CorkSession.beforeWelcome(ClientError.server(busy), lastAttempt: nil))
        #expect(failure.exitCode == .cannotConnect)
        #expect(failure.triedAgainBeforeWelcome)
        #expect(failure.message.contains("could not check the token"), "\(failure.message)")
    }

    /// One user's sessions all taken (`server_full` at hello, many jobs of one bot): cork waits for room, then runs.
    @Test func serverFullBeforeWelcomeIsTriedAgain() async throws {
        try await withCorkd { corkd in
            let before = corkd.port
            _ = try await corkd.terminate(timeout: .seconds(10))
            try await corkd.restart(options: ["--connections-per-user", "1"])
            let url = corkd.ownerURL.replacingOccurrences(of: ":\(before)/", with: ":\(corkd.port)/")
            let cork = try CorkProcess(corkd, url: url)
            let watch = try await cork.watching(name: "cork-watch-holds-the-session")
            defer { watch.killAndReap() }
            let say = try cork.launch(["say", "once there is room"], name: "cork-say-waits")
            defer { say.killAndReap() }
            try await Task.sleep(for: .seconds(1))
            #expect(say.isRunning, "cork gave up while the session was taken: \(say.standardError)")
            watch.send(signal: SIGTERM)
            let exit = await say.waitForExit(timeout: .seconds(20))
            #expect(exit?.isSuccess == true, "\(exit?.description ?? "still running"); \(say.standardError)")
        }
    }

    /// An op whose answer never came is exit 6, not "cannot connect" (4, which says nothing happened): it may have
    /// been applied.
    @Test func aLostAnswerIsOutcomeUnknown() {
        for code in [ClientError.Code.disconnected, .timeout, .cannotConnect, .tls, .stopped] {
            let failure = CorkFailure(afterSending: ClientError(code, "the connection closed"))
            #expect(failure.exitCode == .outcomeUnknown, "\(code)")
            #expect(failure.message.contains("may have been applied"))
        }
        // A failed reconnect says it is one: "cannot connect …; the op was sent" read as if it had never connected.
        let reconnect = CorkFailure(afterSending: ClientError(.cannotConnect, "cannot connect to 127.0.0.1:7420: connection refused"))
        #expect(reconnect.message.hasPrefix("the connection was lost after the op was sent, and could not be made again (cannot connect"), "\(reconnect.message)")
        #expect(CorkFailure(afterSending: ClientError(.invalidArgument, "bad")).exitCode == .usage)
        #expect(CorkExitCode.helpText.contains("6  outcome unknown"))
    }
}
