import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// The board hash in `subscribed` (Protocol.md, "Board hash"): an independent client computes the same value from
/// the snapshot (`Tests/Interop/board_hash.py`, standard library only), and a replica that applied the deltas with
/// the reducer arrives at it too.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct BoardHashTests {
    static let script = CorkdProcess.packageRoot.appendingPathComponent("Tests/Interop/board_hash.py")

    /// Ops that exercise every part of the canonical form: optional fields set and absent, escapes, non-ASCII text,
    /// a WIP limit, checklist, comments (one edited), a purged card, members with names.
    static let ops = [
        ##"{"kind":"label.create","label":"bug","name":"bug \"quoted\"","color":"#D73A4A"}"##,
        #"{"kind":"milestone.create","milestone":"v1","title":"v1.0 — première","due":"2026-03-01"}"#,
        #"{"kind":"milestone.create","milestone":"v0","title":"v0"}"#,
        #"{"kind":"column.wip","column":"doing","limit":3,"hard":true}"#,
        #"{"kind":"member.set","user":"bob","role":"editor","name":"Bob \\ B."}"#,
        #"{"kind":"card.add","card":"c2","title":"Fix «login» ☃","description":"line 1\nline 2\r\n\ttabbed \"quoted\" back\\slash","due":"2026-02-15","labels":["bug"],"assignees":["bob"],"milestone":"v1","ref":"GH-1"}"#,
        #"{"kind":"card.add","card":"c10","column":"doing","title":"Second"}"#,
        #"{"kind":"card.add","card":"A1","column":"done","title":"Upper-case id sorts first"}"#,
        #"{"kind":"checklist.add","card":"c2","item":"i1","text":"one","done":true}"#,
        #"{"kind":"comment.add","card":"c2","comment":"m1","text":"first"}"#,
        #"{"kind":"comment.edit","card":"c2","comment":"m1","text":"first, edited"}"#,
        #"{"kind":"comment.add","card":"c10","comment":"m2","text":"tab\tand \u00e9"}"#,
        #"{"kind":"card.add","card":"gone","title":"to purge"}"#,
        #"{"kind":"card.purge","card":"gone"}"#,
        #"{"kind":"card.close","card":"c10"}"#,
        #"{"kind":"card.archive","card":"A1"}"#,
        #"{"kind":"board.remind","hours":48}"#,
    ]

    @Test func pythonComputesTheServersHashFromTheSnapshot() async throws {
        let python = try SpawnedProcess.tool("python3")
        try await withTestServer { server in
            let probe = try await server.connect(clientID: "hash")
            for (index, op) in Self.ops.enumerated() {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(index + 1),"op":\#(op)}"#)
                let ack = try await probe.expect(type: "ack", skipping: ["ping"])
                #expect(ack["mut"] as? Int == index + 1, "\(op)")
            }
            try await probe.send(#"{"type":"subscribe","req":1,"board":"main"}"#)
            var snapshotLine = ""
            while snapshotLine.isEmpty {
                let line = try #require(try await probe.next())
                if line.contains(#""type":"snapshot""#) { snapshotLine = line }
            }
            let subscribed = try await probe.expect(type: "subscribed")
            let hash = try #require(subscribed["hash"] as? String, "subscribed carries the board hash: \(subscribed)")
            #expect(hash.hasPrefix("sha256:") && hash.count == 71)

            let result = try await SpawnedProcess.run(
                python, [Self.script.path], input: snapshotLine + "\n", timeout: .seconds(30),
                logDirectory: server.directory, name: "board-hash")
            #expect(result.exit.isSuccess, "\(result.standardError)")
            #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == hash)

            // The Swift replica's hash of the same snapshot agrees.
            guard case .snapshot(let snapshot) = try LineCoder().decodeServer(Array(snapshotLine.utf8)) else {
                Issue.record("not a snapshot")
                return
            }
            #expect("sha256:" + snapshot.state.contentHash == hash)
            await probe.close()
        }
    }

    @Test func aReplicaThatAppliedTheDeltasMatchesTheHashOfALaterSubscribe() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(clientID: "replica")
            try await probe.send(#"{"type":"subscribe","req":1,"board":"main"}"#)
            var replica: Board?
            var epoch = ""
            while true {
                let line = try #require(try await probe.next())
                guard let message = try? LineCoder().decodeServer(Array(line.utf8)) else { continue }
                if case .snapshot(let s) = message { replica = s.state }
                if case .subscribed(let s) = message {
                    epoch = s.epoch
                    break
                }
            }
            var board = try #require(replica)
            for (index, op) in Self.ops.enumerated() {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(index + 1),"op":\#(op)}"#)
            }
            // Apply every delta as a client does: the reducer with the delta's context, role owner.
            while board.seq < UInt64(Self.ops.count) {
                let line = try #require(try await probe.next())
                guard case .delta(let delta) = try? LineCoder().decodeServer(Array(line.utf8)) else { continue }
                let context = ApplyContext(actor: delta.actor, role: .owner, now: delta.at, seq: delta.seq)
                guard case .success(let change) = board.applying(delta.op, context: context) else {
                    Issue.record("the replica rejects seq \(delta.seq)")
                    return
                }
                board = change.board
            }
            try await probe.send(#"{"type":"subscribe","req":2,"board":"main","since":\#(board.seq),"epoch":"\#(epoch)"}"#)
            let subscribed = try await probe.expect(type: "subscribed", skipping: ["ack", "presence.state", "ping"])
            #expect(subscribed["seq"] as? Int == Int(board.seq))
            #expect(subscribed["hash"] as? String == "sha256:" + board.contentHash)
            await probe.close()
        }
    }
}
