import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// The one rule for op fields (Protocol.md, "JSON rules"): an `op` whose kind is known and whose fields have the
/// right JSON types decodes, and anything out of range inside it — an id, a colour, a date, a role, a rank, a
/// length, a limit — is refused with `reject` (`invalid` or `too_large`), never with `error`; the connection stays
/// open. One malformed field per op kind, every kind covered.
@Suite(.timeLimit(.minutes(2))) struct OpFieldRuleTests {
    static let bad = "bad id!"
    static let long = String(repeating: "x", count: 65)

    /// Kind, the op object, and the reject code expected.
    static let table: [(kind: String, op: String, code: String)] = [
        ("board.rename", #"{"kind":"board.rename","name":""}"#, "invalid"),
        ("board.remind", #"{"kind":"board.remind","hours":721}"#, "invalid"),
        ("board.rename", #"{"kind":"board.rename","name":"\#(String(repeating: "n", count: 81))"}"#, "too_large"),
        ("member.set", #"{"kind":"member.set","user":"\#(bad)","role":"editor"}"#, "invalid"),
        ("member.set", #"{"kind":"member.set","user":"dave","role":"chief"}"#, "invalid"),
        ("member.remove", #"{"kind":"member.remove","user":"\#(bad)"}"#, "invalid"),
        ("column.add", #"{"kind":"column.add","column":"\#(long)","name":"X"}"#, "invalid"),
        ("column.rename", #"{"kind":"column.rename","column":"\#(bad)","name":"X"}"#, "invalid"),
        ("column.move", #"{"kind":"column.move","column":"\#(bad)","index":0}"#, "invalid"),
        ("column.remove", #"{"kind":"column.remove","column":"\#(bad)"}"#, "invalid"),
        ("column.wip", #"{"kind":"column.wip","column":"todo","limit":1001}"#, "invalid"),
        ("column.wip", #"{"kind":"column.wip","column":"\#(bad)","limit":null}"#, "invalid"),
        ("column.in_progress", #"{"kind":"column.in_progress","column":"\#(bad)","in_progress":true}"#, "invalid"),
        ("card.add", #"{"kind":"card.add","card":"\#(bad)","title":"t"}"#, "invalid"),
        ("card.add", #"{"kind":"card.add","card":"k1","title":"t","due":"2026-13-45"}"#, "invalid"),
        ("card.add", #"{"kind":"card.add","card":"k1","title":"t","labels":["\#(bad)"]}"#, "invalid"),
        ("card.add", #"{"kind":"card.add","card":"k1","title":"t","after":"\#(bad)"}"#, "invalid"),
        ("card.edit", #"{"kind":"card.edit","card":"\#(bad)","title":"t"}"#, "invalid"),
        ("card.edit", #"{"kind":"card.edit","card":"k0","due":"tomorrow"}"#, "invalid"),
        ("card.move", #"{"kind":"card.move","card":"k0","to_column":"\#(bad)"}"#, "invalid"),
        ("card.move", #"{"kind":"card.move","card":"k0","to_column":"done","rank":"V0"}"#, "invalid"),
        ("card.label", #"{"kind":"card.label","card":"k0","label":"\#(bad)"}"#, "invalid"),
        ("card.unlabel", #"{"kind":"card.unlabel","card":"\#(bad)","label":"bug"}"#, "invalid"),
        ("card.assign", #"{"kind":"card.assign","card":"k0","user":"\#(bad)"}"#, "invalid"),
        ("card.unassign", #"{"kind":"card.unassign","card":"k0","user":"\#(long)"}"#, "invalid"),
        ("card.block", #"{"kind":"card.block","card":"k0","by":"\#(bad)"}"#, "invalid"),
        ("card.unblock", #"{"kind":"card.unblock","card":"\#(long)","by":"k0"}"#, "invalid"),
        ("card.recur", #"{"kind":"card.recur","card":"k0","recur":{"every":"week"}}"#, "invalid"),
        ("card.watch", #"{"kind":"card.watch","card":"\#(bad)"}"#, "invalid"),
        ("card.unwatch", #"{"kind":"card.unwatch","card":"\#(long)"}"#, "invalid"),
        ("card.close", #"{"kind":"card.close","card":"\#(bad)"}"#, "invalid"),
        ("card.reopen", #"{"kind":"card.reopen","card":"\#(bad)"}"#, "invalid"),
        ("card.archive", #"{"kind":"card.archive","card":"\#(bad)"}"#, "invalid"),
        ("card.restore", #"{"kind":"card.restore","card":"\#(bad)"}"#, "invalid"),
        ("card.purge", #"{"kind":"card.purge","card":"\#(bad)"}"#, "invalid"),
        ("checklist.add", #"{"kind":"checklist.add","card":"k0","item":"\#(bad)","text":"t"}"#, "invalid"),
        ("checklist.edit", #"{"kind":"checklist.edit","card":"k0","item":"\#(bad)","done":true}"#, "invalid"),
        ("checklist.remove", #"{"kind":"checklist.remove","card":"k0","item":"\#(bad)"}"#, "invalid"),
        ("comment.add", #"{"kind":"comment.add","card":"k0","comment":"\#(bad)","text":"t"}"#, "invalid"),
        ("comment.edit", #"{"kind":"comment.edit","card":"k0","comment":"\#(bad)","text":"t"}"#, "invalid"),
        ("comment.delete", #"{"kind":"comment.delete","card":"k0","comment":"\#(bad)"}"#, "invalid"),
        ("label.create", #"{"kind":"label.create","label":"red","name":"red","color":"red"}"#, "invalid"),
        ("label.create", ##"{"kind":"label.create","label":"\##(bad)","name":"red","color":"#ff0000"}"##, "invalid"),
        ("label.update", ##"{"kind":"label.update","label":"bug","color":"#12345"}"##, "invalid"),
        ("label.delete", #"{"kind":"label.delete","label":"\#(bad)"}"#, "invalid"),
        ("milestone.create", #"{"kind":"milestone.create","milestone":"v9","title":"v9","due":"2026-02-30"}"#, "invalid"),
        ("milestone.update", #"{"kind":"milestone.update","milestone":"v1","due":"1 March"}"#, "invalid"),
        ("milestone.close", #"{"kind":"milestone.close","milestone":"\#(bad)"}"#, "invalid"),
        ("milestone.reopen", #"{"kind":"milestone.reopen","milestone":"\#(bad)"}"#, "invalid"),
        ("milestone.delete", #"{"kind":"milestone.delete","milestone":"\#(bad)"}"#, "invalid"),
        ("chat", #"{"kind":"chat","text":""}"#, "invalid"),
        ("chat", #"{"kind":"chat","text":"\#(String(repeating: "c", count: 4097))"}"#, "too_large"),
    ]

    @Test func everyOpKindIsCovered() {
        #expect(Set(Self.table.map(\.kind)) == Set(Op.allKinds))
    }

    @Test func aDecodableOpWithAFieldOutOfRangeIsRejectedNeverAnError() async throws {
        // Nearly 50 ops as fast as the server answers: over the default burst (40) on a fast machine, and the rate
        // limit is not what this test is about.
        try await withTestServer(configure: { $0.limits.rateOpsPerS = 10_000; $0.limits.rateBurst = 10_000 }) { server in
            let probe = try await server.connect(clientID: "fields")
            // Something to refer to: a card k0, a label bug, a milestone v1.
            let setup = [
                #"{"kind":"card.add","card":"k0","title":"target"}"#,
                ##"{"kind":"label.create","label":"bug","name":"bug","color":"#d73a4a"}"##,
                #"{"kind":"milestone.create","milestone":"v1","title":"v1"}"#,
            ]
            var mut = 0
            for op in setup {
                mut += 1
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"#)
                #expect(try await probe.expect(type: "ack")["mut"] as? Int == mut)
            }
            for row in Self.table {
                mut += 1
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":\#(row.op)}"#)
                // The answer must be a reject (an ack or an error fails `expect`); a ping may come first on a busy machine.
                let reply = try await probe.expect(type: "reject", skipping: ["ping"])
                #expect(reply["code"] as? String == row.code, "\(row.op) → \(reply)")
                #expect(reply["mut"] as? Int == mut, "\(row.op)")
                #expect(reply["board"] as? String == "main", "\(row.op)")
            }
            // Still open, and nothing was applied: the board is at seq 3.
            try await probe.send(#"{"type":"subscribe","board":"main"}"#)
            #expect(try await probe.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "ping"])["seq"] as? Int == 3)
            await probe.close()
        }
    }

    @Test func aWrongJSONTypeOrAMissingFieldIsStillABadRequest() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            for (mut, op) in [(1, #"{"kind":"card.close","card":7}"#), (2, #"{"kind":"card.add","card":"k1"}"#)] {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"#)
                let error = try await probe.expect(type: "error")
                #expect(error["code"] as? String == "bad_request")
                #expect(error["mut"] as? Int == mut)
                #expect(error["close"] == nil)
            }
            await probe.close()
        }
    }
}
