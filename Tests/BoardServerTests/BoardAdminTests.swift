import BoardTesting
import BoardWire
import Foundation
import Testing

/// `corkd board create|list|rename|archive|unarchive` against the real binary, with the server running and not
/// (the shipped way to create and manage boards).
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct BoardAdminTests {
    /// The ids `boards` lists for a probe.
    static func boards(_ probe: WireProbe) async throws -> [String] {
        try await probe.send(#"{"type":"boards","req":"b"}"#)
        let reply = try await probe.expect(type: "boards", skipping: ["presence", "presence.state", "presence.left", "ping", "delta"])
        return ((reply["boards"] as? [[String: Any]]) ?? []).compactMap { $0["board"] as? String }
    }

    @Test func aBoardIsCreatedRenamedArchivedAndBroughtBackWhileTheServerRuns() async throws {
        try await withCorkd { corkd in
            let created = try await corkd.admin(["board", "create", "ops", "--name", "Ops rota"])
            #expect(created.exit.isSuccess, "\(created.exit): \(created.standardError)")
            #expect(created.standardOutput == "created board ops (Ops rota), owned by owner\n", "\(created.standardOutput)")
            let again = try await corkd.admin(["board", "create", "ops"])
            #expect(again.exit.status == 3 && again.standardError.contains("board id ops is taken"), "\(again.exit): \(again.standardError)")

            let owner = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            #expect(try await Self.boards(owner) == ["main", "ops"])
            let list = try await corkd.admin(["board", "list"])
            #expect(list.exit.isSuccess && list.standardOutput.contains("ops   seq 0  Ops rota\n"), "\(list.standardOutput)")

            // Members and a live rename.
            let bob = try OperatorSupport.url(try await corkd.admin(["invite", "--user", "bob", "--board", "ops"]))
            #expect(InviteURL(bob)?.board == "ops")
            let snapshot = try await OperatorSupport.subscribe(owner, "ops")
            #expect(OperatorSupport.members(snapshot).sorted() == ["bob", "owner"], "\(snapshot)")
            let renamed = try await corkd.admin(["board", "rename", "ops", "Operations"])
            #expect(renamed.exit.isSuccess, "\(renamed.standardError)")
            let delta = try await owner.expect(type: "delta")
            #expect((delta["op"] as? [String: Any])?["kind"] as? String == "board.rename" && delta["actor"] as? String == "corkd", "\(delta)")

            // Archived: the subscriber is told, the board is gone for clients, its id stays taken.
            let archived = try await corkd.admin(["board", "archive", "ops", "--json"])
            #expect(archived.exit.isSuccess && archived.standardOutput == #"{"archived":true,"board":"ops"}"# + "\n", "\(archived.standardOutput) \(archived.standardError)")
            let gone = try await owner.expect(type: "error")
            #expect(gone["code"] as? String == "not_found" && gone["board"] as? String == "ops", "\(gone)")
            #expect(try await Self.boards(owner) == ["main"])
            #expect(try await OperatorSupport.subscribe(owner, "ops", req: "s2")["code"] as? String == "not_found")
            try await owner.send(#"{"type":"board.create","req":"c","board":"ops","name":"Again"}"#)
            let taken = try await owner.expect(type: "error")
            #expect(taken["code"] as? String == "bad_request" && (taken["message"] as? String ?? "").contains("taken"), "\(taken)")
            let invite = try await corkd.admin(["invite", "--user", "carol", "--board", "ops"])
            #expect(invite.exit.status == 5 && invite.standardError.contains("board ops is archived"), "\(invite.standardError)")
            #expect(!(try await corkd.admin(["board", "list"])).standardOutput.contains("ops"))
            let all = try await corkd.admin(["board", "list", "--all", "--json"])
            let rows = try #require((try JSONSerialization.jsonObject(with: Data(all.standardOutput.utf8)) as? [String: Any])?["boards"] as? [[String: Any]])
            #expect(rows.contains { $0["board"] as? String == "ops" && $0["archived"] as? Bool == true && $0["name"] as? String == "Operations" }, "\(rows)")

            // Back, as it was.
            let back = try await corkd.admin(["board", "unarchive", "ops"])
            #expect(back.exit.isSuccess, "\(back.standardError)")
            let restored = try await OperatorSupport.subscribe(owner, "ops", req: "s3")
            #expect(restored["seq"] as? Int == delta["seq"] as? Int, "\(restored)")
            #expect(OperatorSupport.members(restored).sorted() == ["bob", "owner"])
            #expect(((restored["state"] as? [String: Any])?["name"] as? String) == "Operations")
            // Same epoch: a client that kept its replica resumes without a snapshot.
            let epoch = try #require(snapshot["epoch"] as? String)
            let seq = try #require(delta["seq"] as? Int)
            try await owner.send(#"{"type":"subscribe","req":"s4","board":"ops","since":\#(seq),"epoch":"\#(epoch)"}"#)
            let resumed = try await owner.expect(type: "subscribed")
            #expect(resumed["seq"] as? Int == seq && resumed["epoch"] as? String == epoch, "\(resumed)")
            await owner.close()
        }
    }

    @Test func boardCommandsWorkWithTheServerStoppedAndTheServerServesTheResult() async throws {
        try await withCorkd { corkd in
            #expect(try await corkd.terminate().isSuccess)
            let created = try await corkd.admin(["board", "create", "team-a", "team-b", "--owner", "lead"])
            #expect(created.exit.isSuccess, "\(created.standardError)")
            #expect(created.standardOutput.contains("created board team-b (team-b), owned by lead"))
            #expect(try await corkd.admin(["board", "rename", "team-a", "Team A"]).exit.isSuccess)
            #expect(try await corkd.admin(["board", "archive", "team-b"]).exit.isSuccess)
            // The wire's rule for names, not only their length.
            for name in ["   ", "line\nbreak", String(repeating: "x", count: 81)] {
                let refused = try await corkd.admin(["board", "create", "team-x", "--name", name])
                #expect(refused.exit.status == 2 && refused.standardError.contains("--name"), "\(name): \(refused.standardError)")
            }
            let missing = try await corkd.admin(["board", "archive", "team-c"])
            #expect(missing.exit.status == 5 && missing.standardError.contains("no board team-c"), "\(missing.standardError)")
            let url = try OperatorSupport.url(try await corkd.admin(["invite", "--user", "lead", "--role", "owner", "--board", "team-a"]))

            try await corkd.restart()
            let lead = try await ProcessLifecycleTests.hello(corkd, token: try #require(InviteURL(url)).token, expectUser: "lead")
            #expect(try await Self.boards(lead) == ["team-a"], "team-b is archived")
            let snapshot = try await OperatorSupport.subscribe(lead, "team-a")
            #expect(((snapshot["state"] as? [String: Any])?["name"] as? String) == "Team A", "\(snapshot)")
            await lead.close()
        }
    }
}
