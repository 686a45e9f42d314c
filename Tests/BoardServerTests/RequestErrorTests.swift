import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// Requests answered the way Protocol.md says, for boards that are missing, hidden or not subscribed. Each test
/// asserts the reply code and that the connection stays open.
@Suite(.timeLimit(.minutes(2))) struct RequestErrorTests {
    static let catchUp: Set<String> = ["snapshot", "presence", "presence.state", "presence.left", "delta", "ping"]

    /// Proves the connection still answers.
    static func expectOpen(_ probe: WireProbe) async throws {
        try await probe.send(#"{"type":"ping","req":"open"}"#)
        #expect(try await probe.expect(type: "pong", skipping: catchUp)["req"] as? String == "open")
    }

    @Test func boardCreateChecksTheNameLikeTheReducerDoes() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            let long = String(repeating: "n", count: 81)
            for (req, name) in [(1, long), (2, ""), (3, "   "), (4, #"two\nlines"#), (5, #"bell\u0007"#)] {
                try await probe.send(#"{"type":"board.create","req":\#(req),"board":"b\#(req)","name":"\#(name)"}"#)
                let error = try await probe.expect(type: "error")
                #expect(error["code"] as? String == "bad_request", "name \(name)")
                #expect(error["req"] as? Int == req)
                #expect((error["message"] as? String)?.contains("`name`") == true, "\(error)")
                #expect(error["close"] == nil)
            }
            try await probe.send(#"{"type":"board.create","req":6,"board":"b6","name":"\#(String(repeating: "é", count: 80))"}"#)
            #expect(try await probe.expect(type: "ok")["board"] as? String == "b6")
            try await probe.send(#"{"type":"boards","req":7}"#)
            let boards = try await probe.expect(type: "boards")["boards"] as? [[String: Any]]
            #expect(boards?.compactMap { $0["board"] as? String } == ["b6", "main"])
            await probe.close()
        }
    }

    @Test func anOpOnAMissingOrHiddenBoardIsRejectedNotFound() async throws {
        try await withTestServer { server in
            let token = try await server.invite("eve", board: "other")
            let eve = try await server.connect(token: token)
            for (mut, board) in [(1, "nope"), (2, "main")] {
                try await eve.send(#"{"type":"op","board":"\#(board)","mut":\#(mut),"op":{"kind":"card.add","card":"x","title":"t"}}"#)
                let reject = try await eve.expect(type: "reject")
                #expect(reject["code"] as? String == "not_found", "\(board)")
                #expect(reject["board"] as? String == board)
                #expect(reject["mut"] as? Int == mut)
            }
            try await Self.expectOpen(eve)
            await eve.close()
        }
    }

    @Test func presenceOnABoardNotSubscribedHiddenOrMissingIsAnError() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            try await probe.send(#"{"type":"board.create","req":1,"board":"mine","name":"Mine"}"#)
            _ = try await probe.expect(type: "ok")
            try await probe.send(#"{"type":"subscribe","board":"mine"}"#)
            _ = try await probe.expect(type: "subscribed", skipping: Self.catchUp)
            let token = try await server.invite("eve", board: "mine")
            _ = try await probe.expect(type: "delta")  // the invite applied
            let eve = try await server.connect(token: token)
            // A member, not subscribed: bad_request.
            try await eve.send(#"{"type":"presence","board":"mine","state":"viewing"}"#)
            let unsubscribed = try await eve.expect(type: "error")
            #expect(unsubscribed["code"] as? String == "bad_request")
            #expect(unsubscribed["board"] as? String == "mine")
            // Not a member, or no such board: not_found, the same for both.
            for board in ["main", "nope"] {
                try await eve.send(#"{"type":"presence","board":"\#(board)","state":"viewing"}"#)
                let error = try await eve.expect(type: "error")
                #expect(error["code"] as? String == "not_found", "\(board)")
                #expect(error["board"] as? String == board)
            }
            try await Self.expectOpen(eve)
            // Subscribed: no answer at all.
            try await eve.send(#"{"type":"subscribe","board":"mine"}"#)
            _ = try await eve.expect(type: "subscribed", skipping: Self.catchUp)
            try await eve.send(#"{"type":"presence","board":"mine","state":"viewing","card":"c1"}"#)
            try await Self.expectOpen(eve)
            await eve.close()
            await probe.close()
        }
    }

    @Test func unsubscribeOfAMissingOrHiddenBoardIsNotFound() async throws {
        try await withTestServer { server in
            let token = try await server.invite("eve", board: "other")
            let eve = try await server.connect(token: token)
            for (req, board) in [(1, "nope"), (2, "main")] {
                try await eve.send(#"{"type":"unsubscribe","req":\#(req),"board":"\#(board)"}"#)
                let error = try await eve.expect(type: "error")
                #expect(error["code"] as? String == "not_found", "\(board)")
                #expect(error["req"] as? Int == req)
            }
            try await Self.expectOpen(eve)
            await eve.close()
        }
    }

    @Test func fetchNeedsASubscription() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"one"}}"#)
            _ = try await probe.expect(type: "ack")
            try await probe.send(#"{"type":"fetch","req":1,"board":"main","from":1,"to":1}"#)
            let error = try await probe.expect(type: "error")
            #expect(error["code"] as? String == "bad_request")
            #expect(error["req"] as? Int == 1)
            try await Self.expectOpen(probe)
            await probe.close()
        }
    }
}
