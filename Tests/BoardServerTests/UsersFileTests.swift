import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import BoardTransport
import BoardWire
import Foundation
import Logging
import Testing

/// `corkd invite --users-file`: the format (pure) and the real binary, and `members_max` large enough
/// for a 1,000-subscriber board of distinct users, configurable with `--members-max`.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct UsersFileTests {
    @Test func theFormatTakesDefaultsCommentsAndSeveralBoards() throws {
        let text = """
            # the team
            alice
            bob viewer          # reads only
            \tcarol owner main,ops
            dave bot ops

            """
        let entries = try UsersFile.parse(text, role: .editor, board: "main")
        #expect(entries.map(\.user) == ["alice", "bob", "carol", "dave"])
        #expect(entries.map(\.role) == [.editor, .viewer, .owner, .bot])
        #expect(entries.map(\.boards) == [["main"], ["main"], ["main", "ops"], ["ops"]])
        #expect(entries.map(\.line) == [2, 3, 4, 5])
    }

    @Test(arguments: [
        ("alice\nbob boss\n", "line 2: boss is not a role"),
        ("al ice x y\n", "line 1: expected USER [ROLE [BOARD[,BOARD…]]], got 4 fields"),
        ("alice\nbad/name\n", "line 2: bad/name is not a user name"),
        ("alice editor main,\n", "line 1: an empty name is not a board id"),
        ("alice\nbob\nalice viewer\n", "line 3: alice is invited to main on line 1 already"),
    ])
    func aBadLineIsNamed(_ text: String, _ message: String) {
        do {
            let entries = try UsersFile.parse(text, role: .editor, board: "main")
            Issue.record("parsed as \(entries)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }

    @Test func oneProcessInvitesEveryLineAndPrintsAURLEachInOrder() async throws {
        try await withCorkd { corkd in
            #expect(try await corkd.admin(["board", "create", "ops"]).exit.isSuccess)
            let file = corkd.root.appendingPathComponent("users.txt")
            try "# people\nalice\nbob viewer\ncarol owner main,ops\n".write(to: file, atomically: true, encoding: .utf8)
            let result = try await corkd.admin(["invite", "--users-file", file.path, "--json"])
            #expect(result.exit.isSuccess, "\(result.exit): \(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            try #require(lines.count == 3, "\(result.standardOutput)")
            #expect(lines.map { $0?["user"] as? String } == ["alice", "bob", "carol"], "\(result.standardOutput)")
            #expect(lines.map { $0?["role"] as? String } == ["editor", "viewer", "owner"])
            #expect(lines[2]?["boards"] as? [String] == ["main", "ops"])
            // Every membership is applied when the command returns: each URL opens its board at once.
            for line in lines {
                let text = try #require(line?["url"] as? String)
                let url = try #require(InviteURL(text))
                let pinned = try corkd.pinned()
                #expect(url.port == corkd.port && url.fingerprint.flatMap(Fingerprint.init) == pinned)
                let probe = try await ProcessLifecycleTests.hello(corkd, token: url.token)
                for board in line?["boards"] as? [String] ?? [] {
                    let reply = try await OperatorSupport.subscribe(probe, board, req: board)
                    #expect(reply["type"] as? String == "snapshot", "\(line ?? [:]) on \(board): \(reply)")
                }
                await probe.close()
            }
            // Plain output: one URL per line.
            try "erin\nfrank\n".write(to: file, atomically: true, encoding: .utf8)
            let plain = try await corkd.admin(["invite", "--users-file", file.path])
            #expect(plain.standardOutput.split(separator: "\n").compactMap { InviteURL(String($0))?.board } == ["main", "main"], "\(plain.standardOutput)")
        }
    }

    @Test func aBadLineOrAMissingBoardChangesNothing() async throws {
        try await withCorkd { corkd in
            let file = corkd.root.appendingPathComponent("users.txt")
            let users = "SELECT count(*) FROM users"
            let before = try await OperatorSupport.sql(corkd, users)
            try "gina\nhal chief\n".write(to: file, atomically: true, encoding: .utf8)
            let bad = try await corkd.admin(["invite", "--users-file", file.path])
            #expect(bad.exit.status == 2 && bad.standardError.contains("line 2: chief is not a role"), "\(bad.exit): \(bad.standardError)")
            try "gina\nhal viewer nope\n".write(to: file, atomically: true, encoding: .utf8)
            let missing = try await corkd.admin(["invite", "--users-file", file.path])
            #expect(missing.exit.status == 5 && missing.standardError.contains("line 2: no board nope"), "\(missing.exit): \(missing.standardError)")
            #expect(bad.standardOutput.isEmpty && missing.standardOutput.isEmpty)
            #expect(try await OperatorSupport.sql(corkd, users) == before, "gina was not created")
        }
    }

    @Test func aThousandSubscribersOfDistinctUsersFitOnOneBoardThroughTheServer() async throws {
        try await withCorkd { corkd in
            // 1,000 subscribers, 8 publishers and the owner: a load test's board.
            let file = corkd.root.appendingPathComponent("users.txt")
            let lines = (0..<1_000).map { "sub\($0) viewer" } + (0..<8).map { "pub\($0) editor" }
            try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
            let result = try await corkd.admin(["invite", "--users-file", file.path], timeout: .seconds(60))
            #expect(result.exit.isSuccess, "\(result.exit): \(result.standardError.suffix(500))")
            #expect(result.standardOutput.split(separator: "\n").count == 1_008)
            let owner = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            let snapshot = try await OperatorSupport.subscribe(owner, "main")
            #expect(OperatorSupport.members(snapshot).count == 1_009)
            await owner.close()
            let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)"}"#)
            let welcome = try await probe.expect(type: "welcome")
            #expect((welcome["limits"] as? [String: Any])?["members_max"] as? Int == Limits.membersDefault)
            await probe.close()
        }
    }

    @Test func membersMaxIsConfigurableAdvertisedAndEnforcedForAdminAndWire() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(options: ["--members-max", "3"])
        let owner = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
        _ = try await corkd.invite("ann")
        _ = try await corkd.invite("ben")
        let full = try await corkd.admin(["invite", "--user", "cat"])
        #expect(full.exit.status == 3 && full.standardError.contains("at most 3 members"), "\(full.exit): \(full.standardError)")
        try await owner.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"member.set","user":"dan","role":"viewer"}}"#)
        let reject = try await owner.expect(type: "reject", skipping: ["presence", "presence.state", "presence.left", "ping"])
        #expect(reject["code"] as? String == "too_large", "\(reject)")
        await owner.close()
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)"}"#)
        #expect(((try await probe.expect(type: "welcome"))["limits"] as? [String: Any])?["members_max"] as? Int == 3)
        await probe.close()
        // With the server stopped, an invite keeps to the limit the server last enforced.
        #expect(try await corkd.terminate().isSuccess)
        let offline = try await corkd.admin(["invite", "--user", "cat"])
        #expect(offline.exit.status == 3 && offline.standardError.contains("at most 3 members"), "\(offline.standardError)")
        // A refused invite leaves no live token behind (its URL was never printed, so nobody could revoke it).
        let store = try await SQLiteStore.open(directory: corkd.dataDirectory, logger: Logger(label: "test"))
        let left = try await store.revokeTokens(of: "cat", now: WallClock().now())
        try await store.close()
        #expect(left == 0, "\(left) token(s) of a refused invite were still valid")
    }
}
