import BoardTesting
import BoardWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `corkd invite` and friends against the real binary: they return only once a running server has
/// applied them (or apply to the store themselves when none runs), a missing board is exit 5 and changes nothing,
/// and what the server refused is said with its reason.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct AdminCommandTests {
    @Test func anInviteReturnsOnlyOnceTheRunningServerHasAppliedIt() async throws {
        try await withCorkd { corkd in
            for name in ["dave", "erin", "frank"] {
                let url = try await corkd.invite(name)
                // No retry: the membership is there the moment the command has returned.
                let probe = try await ProcessLifecycleTests.hello(corkd, token: url.token, expectUser: name)
                let reply = try await OperatorSupport.subscribe(probe, "main")
                #expect(reply["type"] as? String == "snapshot", "\(name) right after corkd invite: \(reply)")
                #expect(OperatorSupport.members(reply).contains(name), "\(reply)")
                await probe.close()
            }
        }
    }

    @Test func anInviteForAMissingBoardExitsFiveAndChangesNothing() async throws {
        try await withCorkd { corkd in
            let running = try await corkd.admin(["invite", "--user", "ghost", "--board", "nope"])
            #expect(running.exit.status == 5, "\(running.exit): \(running.standardError)")
            #expect(running.standardError.contains("no board nope"), "\(running.standardError)")
            #expect(running.standardOutput.isEmpty, "no URL for a board that does not exist: \(running.standardOutput)")
            #expect(try await OperatorSupport.sql(corkd, "SELECT count(*) FROM users WHERE name = 'ghost'") == "0")

            #expect(try await corkd.terminate().isSuccess)
            let stopped = try await corkd.admin(["invite", "--user", "ghost", "--board", "nope"])
            #expect(stopped.exit.status == 5 && stopped.standardError.contains("no board nope"), "\(stopped.exit): \(stopped.standardError)")
            #expect(try await OperatorSupport.sql(corkd, "SELECT count(*) FROM users WHERE name = 'ghost'") == "0")
            #expect(try await OperatorSupport.sql(corkd, "SELECT count(*) FROM admin") == "0", "nothing was queued")
        }
    }

    @Test func whatTheServerRefusesIsSaidWithItsReasonAndExitsThree() async throws {
        try await withCorkd { corkd in
            // The only owner of main cannot be made a viewer: the board needs an owner.
            let refused = try await corkd.admin(["invite", "--user", "owner", "--role", "viewer"])
            #expect(refused.exit.status == 3, "\(refused.exit): \(refused.standardError)")
            #expect(refused.standardError.contains("needs at least one owner"), "\(refused.standardError)")
            #expect(refused.standardOutput.isEmpty)
            #expect(try await OperatorSupport.sql(corkd, "SELECT count(*) FROM admin WHERE failure IS NOT NULL") == "1")
        }
    }

    @Test func aServerThatDoesNotApplyInTimeIsExitOneAndTheInviteAppliesLater() async throws {
        try await withCorkd { corkd in
            corkd.server?.send(signal: SIGSTOP)
            let started = ContinuousClock.now
            let stuck = try await corkd.admin(["invite", "--user", "gina", "--wait", "1"])
            corkd.server?.send(signal: SIGCONT)
            #expect(stuck.exit.status == 1, "\(stuck.exit): \(stuck.standardError)")
            #expect(stuck.standardError.contains("did not apply 1 of 1 command(s) within 1 s"), "\(stuck.standardError)")
            #expect(ContinuousClock.now - started < .seconds(10))
            // Still queued: the server applies it once it runs again.
            let url = try await corkd.invite("gina")
            let probe = try await ProcessLifecycleTests.hello(corkd, token: url.token, expectUser: "gina")
            #expect(try await OperatorSupport.subscribe(probe, "main")["type"] as? String == "snapshot")
            await probe.close()
        }
    }

    @Test func withNoServerRunningAdminCommandsApplyToTheStoreAtOnce() async throws {
        try await withCorkd { corkd in
            #expect(try await corkd.terminate().isSuccess)
            let url = try await corkd.invite("hana", role: "viewer")
            let refused = try await corkd.admin(["invite", "--user", "owner", "--role", "editor"])
            #expect(refused.exit.status == 3 && refused.standardError.contains("needs at least one owner"), "\(refused.standardError)")
            #expect(try await OperatorSupport.sql(corkd, "SELECT count(*) FROM admin") == "0", "applied directly, not queued")
            try await corkd.restart()
            let probe = try await ProcessLifecycleTests.hello(corkd, token: url.token, expectUser: "hana")
            let snapshot = try await OperatorSupport.subscribe(probe, "main")
            #expect(snapshot["type"] as? String == "snapshot" && OperatorSupport.members(snapshot).contains("hana"), "\(snapshot)")
            await probe.close()
        }
    }

    @Test func aSecondServerOnTheSameDirectoryRefusesToStart() async throws {
        try await withCorkd { corkd in
            let first = try #require(corkd.server)
            let second = try SpawnedProcess(
                executable: CorkdProcess.executable,
                arguments: ["serve", "--data-dir", corkd.dataDirectory.path, "--port", "0", "--host", "127.0.0.1"],
                logDirectory: corkd.logDirectory, name: "corkd-second", unprivileged: true)
            defer { second.killAndReap() }
            let exit = await second.waitForExit(timeout: .seconds(20))
            #expect(exit?.reason == .exit && exit?.status == 2, "\(exit?.description ?? "still running")")
            #expect(second.standardError.contains("another corkd is serving"), "\(second.standardError)")
            #expect(first.isRunning)
        }
    }

    @Test func anAdminCommandOnADirectoryWhereNoServerEverStartedIsRefused() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let result = try await corkd.admin(["invite", "--user", "ivan"])
        #expect(result.exit.status != 0, "\(result.exit)")
        #expect(result.standardError.contains("start corkd there once first"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: corkd.storeFile.path), "no store made behind the first start's back")
    }
}
