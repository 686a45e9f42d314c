import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// A live server over real TLS on 127.0.0.1 port 0 (tier 4): handshake, subscribe, ops, fan-out, resume.
@Suite(.timeLimit(.minutes(2))) struct ServerSessionTests {
    @Test func helloGivesWelcomeWithTheLimits() async throws {
        try await withTestServer { server in
            let probe = try await WireProbe.connect(port: server.port, fingerprint: server.fingerprint)
            try await probe.send(#"{"type":"hello","req":1,"version":1,"client":"test","token":"\#(server.ownerToken)","client_id":"c-1"}"#)
            let welcome = try await probe.expect(type: "welcome")
            #expect(welcome["user"] as? String == "owner")
            #expect(welcome["client_id"] as? String == "c-1")
            #expect(welcome["req"] as? Int == 1)
            let limits = try #require(welcome["limits"] as? [String: Any])
            #expect(limits["line_max"] as? Int == 65536)
            #expect(limits["preauth_line_max"] as? Int == 4096)
            await probe.close()
        }
    }

    @Test func subscribeGivesASnapshotThenSubscribed() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            try await probe.send(#"{"type":"subscribe","req":2,"board":"main"}"#)
            let snapshot = try await probe.expect(type: "snapshot")
            #expect(snapshot["reason"] as? String == "initial")
            let state = try #require(snapshot["state"] as? [String: Any])
            #expect((state["columns"] as? [[String: Any]])?.map { $0["name"] as? String } == ["TODO", "DOING", "DONE"])
            let subscribed = try await probe.expect(type: "subscribed")
            #expect(subscribed["seq"] as? Int == 0)
            #expect(subscribed["epoch"] as? String == snapshot["epoch"] as? String)
            await probe.close()
        }
    }

    @Test func anOpIsAckedAfterItsDeltaIsDurableAndEverySubscriberGetsIt() async throws {
        try await withTestServer { server in
            let alice = try await server.connect(clientID: "alice-1")
            try await alice.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await alice.expect(type: "snapshot")
            _ = try await alice.expect(type: "subscribed")
            let bobToken = try await server.invite("bob")
            // The invite is applied by the admin poller as a change by corkd.
            let invite = try await alice.expect(type: "delta")
            #expect((invite["op"] as? [String: Any])?["kind"] as? String == "member.set")
            let bob = try await server.connect(token: bobToken)
            try await bob.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await bob.expect(type: "snapshot")
            _ = try await bob.expect(type: "subscribed")

            try await alice.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"Fix login"}}"#)
            let ack = try await alice.expect(type: "ack")
            #expect(ack["seq"] as? Int == 2)
            let delta = try await alice.expect(type: "delta")
            #expect(delta["seq"] as? Int == 2)
            #expect(delta["mut"] as? Int == 1)
            let bobs = try await bob.expect(type: "delta")
            #expect(bobs["seq"] as? Int == 2)
            #expect((bobs["activity"] as? [String: Any])?["actor"] as? String == "owner")
            // The change is in the store.
            let events = try await server.store.events("main", from: 2, to: 2, limit: 1)
            #expect(events.first?.op.kind == "card.add")
            await alice.close()
            await bob.close()
        }
    }

    @Test func aResentMutationIsAckedWithItsOriginalSeqAndNotAppliedTwice() async throws {
        try await withTestServer { server in
            let line = #"{"type":"op","board":"main","mut":7,"op":{"kind":"card.add","card":"k1","title":"Once"}}"#
            let first = try await server.connect(clientID: "bot-1")
            try await first.send(line)
            let ack = try await first.expect(type: "ack")
            await first.close()
            let again = try await server.connect(clientID: "bot-1")
            try await again.send(line)
            let second = try await again.expect(type: "ack")
            #expect(second["seq"] as? Int == ack["seq"] as? Int)
            try await again.send(#"{"type":"subscribe","board":"main"}"#)
            let snapshot = try await again.expect(type: "snapshot")
            #expect(snapshot["seq"] as? Int == ack["seq"] as? Int)
            #expect(((snapshot["state"] as? [String: Any])?["cards"] as? [Any])?.count == 1)
            await again.close()
        }
    }

    @Test func resumeInsideTheLogSendsExactlyTheMissedDeltas() async throws {
        try await withTestServer { server in
            let writer = try await server.connect()
            for mut in 1...5 {
                try await writer.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"m\#(mut)"}}"#)
                _ = try await writer.expect(type: "ack")
            }
            let reader = try await server.connect()
            try await reader.send(#"{"type":"subscribe","board":"main"}"#)
            let snapshot = try await reader.expect(type: "snapshot")
            let epoch = try #require(snapshot["epoch"] as? String)
            await reader.close()
            let resumed = try await server.connect()
            try await resumed.send(#"{"type":"subscribe","board":"main","since":2,"epoch":"\#(epoch)"}"#)
            var seqs: [Int] = []
            for _ in 0..<3 { seqs.append(try await resumed.expect(type: "delta")["seq"] as? Int ?? -1) }
            #expect(seqs == [3, 4, 5])
            #expect(try await resumed.expect(type: "subscribed")["seq"] as? Int == 5)
            // Ahead of the board: an error, never a wait.
            try await resumed.send(#"{"type":"subscribe","req":9,"board":"main","since":99,"epoch":"\#(epoch)"}"#)
            let error = try await resumed.expect(type: "error")
            #expect(error["code"] as? String == "bad_request")
            // Another epoch: a snapshot with reason resync.
            try await resumed.send(#"{"type":"subscribe","board":"main","since":3,"epoch":"other"}"#)
            #expect(try await resumed.expect(type: "snapshot")["reason"] as? String == "resync")
            await resumed.close()
            await writer.close()
        }
    }

    @Test func resumeFromBeforeTheRetainedLogGetsASnapshot() async throws {
        try await withTestServer(configure: { $0.limits.historyMax = 3 }) { server in
            let writer = try await server.connect()
            for mut in 1...6 {
                try await writer.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"m\#(mut)"}}"#)
                _ = try await writer.expect(type: "ack")
            }
            try await writer.send(#"{"type":"subscribe","board":"main"}"#)
            let epoch = try #require(try await writer.expect(type: "snapshot")["epoch"] as? String)
            _ = try await writer.expect(type: "subscribed")
            try await writer.send(#"{"type":"subscribe","board":"main","since":1,"epoch":"\#(epoch)"}"#)
            let snapshot = try await writer.expect(type: "snapshot")
            #expect(snapshot["reason"] as? String == "resync")
            #expect(snapshot["seq"] as? Int == 6)
            _ = try await writer.expect(type: "subscribed")
            // fetch decides exactly as subscribe does. Seqs 4...6 are retained: deltas.
            try await writer.send(#"{"type":"fetch","req":1,"board":"main","from":4,"to":5}"#)
            #expect(try await writer.expect(type: "delta")["seq"] as? Int == 4)
            #expect(try await writer.expect(type: "delta")["seq"] as? Int == 5)
            #expect(try await writer.expect(type: "ok")["req"] as? Int == 1)
            // Seq 2 is not (history_max 3): the resync snapshot subscribe with since 1 got, then ok.
            try await writer.send(#"{"type":"fetch","req":2,"board":"main","from":2,"to":3}"#)
            let fetched = try await writer.expect(type: "snapshot")
            #expect(fetched["reason"] as? String == "resync")
            #expect(fetched["seq"] as? Int == 6)
            #expect(fetched["req"] as? Int == 2)
            #expect(try await writer.expect(type: "ok")["req"] as? Int == 2)
            await writer.close()
        }
    }

    @Test func aNonMemberSeesNotFoundExactlyAsForAMissingBoard() async throws {
        try await withTestServer { server in
            let token = try await server.invite("eve", board: "other")
            let eve = try await server.connect(token: token)
            try await eve.send(#"{"type":"subscribe","req":1,"board":"main"}"#)
            let hidden = try await eve.expect(type: "error")
            try await eve.send(#"{"type":"subscribe","req":1,"board":"nope"}"#)
            let missing = try await eve.expect(type: "error")
            #expect(hidden["code"] as? String == "not_found")
            #expect(missing["code"] as? String == "not_found")
            #expect((hidden["message"] as? String)?.replacingOccurrences(of: "main", with: "X")
                == (missing["message"] as? String)?.replacingOccurrences(of: "nope", with: "X"))
            try await eve.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"x","title":"smuggled"}}"#)
            #expect(try await eve.expect(type: "reject")["code"] as? String == "not_found")
            try await eve.send(#"{"type":"boards","req":3}"#)
            #expect((try await eve.expect(type: "boards")["boards"] as? [Any])?.count == 0)
            await eve.close()
        }
    }

    @Test func aViewerCannotEditButCanChat() async throws {
        try await withTestServer { server in
            let owner = try await server.connect()
            try await owner.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await owner.expect(type: "snapshot")
            _ = try await owner.expect(type: "subscribed")
            let token = try await server.invite("vera", role: .viewer)
            _ = try await owner.expect(type: "delta")  // the invite applied
            let vera = try await server.connect(token: token)
            try await vera.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"x","title":"nope"}}"#)
            let reject = try await vera.expect(type: "reject")
            #expect(reject["code"] as? String == "forbidden")
            try await vera.send(#"{"type":"op","board":"main","mut":2,"op":{"kind":"chat","text":"hi"}}"#)
            #expect(try await vera.expect(type: "ack")["seq"] as? Int == 2)
            await vera.close()
            await owner.close()
        }
    }

    @Test func undoGoesThroughTheServerAsTheInverseOpAndRefusesSomeoneElsesChange() async throws {
        try await withTestServer { server in
            let bobToken = try await server.invite("bob")
            let owner = try await server.connect(clientID: "owner-undo")
            try await owner.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await owner.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "delta"])
            try await owner.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"Undo me"}}"#)
            let added = try #require(try await owner.expect(type: "ack", skipping: ["delta", "presence", "presence.state", "ping"])["seq"] as? Int)
            try await owner.send(#"{"type":"op","board":"main","mut":2,"op":{"kind":"card.edit","card":"k1","title":"Renamed"}}"#)
            let edited = try #require(try await owner.expect(type: "ack", skipping: ["delta", "presence", "presence.state", "ping"])["seq"] as? Int)
            try await owner.send(#"{"type":"op","board":"main","mut":3,"op":{"kind":"undo","seq":\#(edited)}}"#)
            var undo: [String: Any] = [:]
            while undo["seq"] as? Int != edited + 1 {
                undo = try await owner.expect(type: "delta", skipping: ["ack", "presence", "presence.state", "ping"])
            }
            let op = try #require(undo["op"] as? [String: Any])
            #expect(op["kind"] as? String == "card.edit")
            #expect(op["title"] as? String == "Undo me")
            #expect((undo["activity"] as? [String: Any])?["undo_of"] as? Int == edited)
            // Bob may not undo the owner's change.
            let bob = try await server.connect(token: bobToken)
            try await bob.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"undo","seq":\#(added)}}"#)
            #expect(try await bob.expect(type: "reject")["code"] as? String == "forbidden")
            // Chat cannot be undone; a seq that does not exist is not found.
            try await owner.send(#"{"type":"op","board":"main","mut":4,"op":{"kind":"chat","text":"hi"}}"#)
            let chat = try #require(try await owner.expect(type: "ack", skipping: ["delta", "presence", "presence.state", "ping"])["seq"] as? Int)
            try await owner.send(#"{"type":"op","board":"main","mut":5,"op":{"kind":"undo","seq":\#(chat)}}"#)
            #expect(try await owner.expect(type: "reject", skipping: ["delta", "presence", "presence.state", "ping"])["code"] as? String == "not_undoable")
            try await owner.send(#"{"type":"op","board":"main","mut":6,"op":{"kind":"undo","seq":999}}"#)
            #expect(try await owner.expect(type: "reject", skipping: ["delta", "presence", "presence.state", "ping"])["code"] as? String == "not_found")
            await bob.close()
            await owner.close()
        }
    }

    @Test func historyPagesBackwardsAndFiltersByCard() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"One"}}"#)
            _ = try await probe.expect(type: "ack")
            for mut in 2...6 {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"line \#(mut)"}}"#)
                _ = try await probe.expect(type: "ack")
            }
            try await probe.send(#"{"type":"op","board":"main","mut":7,"op":{"kind":"comment.add","card":"k1","comment":"m1","text":"looks good"}}"#)
            _ = try await probe.expect(type: "ack")
            try await probe.send(#"{"type":"history","req":1,"board":"main","limit":3}"#)
            let page = try await probe.expect(type: "history")
            let seqs = (page["activities"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }
            #expect(seqs == [5, 6, 7])
            #expect(page["more"] as? Bool == true)
            try await probe.send(#"{"type":"history","req":2,"board":"main","before":5,"limit":10}"#)
            let rest = try await probe.expect(type: "history")
            #expect((rest["activities"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [1, 2, 3, 4])
            #expect(rest["more"] as? Bool == false)
            try await probe.send(#"{"type":"history","req":3,"board":"main","card":"k1"}"#)
            let card = try await probe.expect(type: "history")
            #expect((card["activities"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["card.add", "comment.add"])
            await probe.close()
        }
    }

    /// A page of long comments bigger than the outbox's cap is cut to what fits, and paging on reaches every record.
    /// It had been queued as live traffic: `slow_consumer` and a close on every ask, so the board could not be paged.
    @Test func aHistoryPageOfLongCommentsIsCutToTheOutboxCapAndPagingReachesEveryRecord() async throws {
        let cap = 64 * 1024
        try await withTestServer(configure: { $0.limits.outboxBytes = cap }) { server in
            let probe = try await server.connect()
            try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"One"}}"#)
            _ = try await probe.expect(type: "ack")
            let text = String(repeating: "c", count: 8_000)
            for mut in 2...13 {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"comment.add","card":"k1","comment":"m\#(mut)","text":"\#(text)"}}"#)
                _ = try await probe.expect(type: "ack")
            }
            var seqs: [Int] = []
            var before: Int?
            for req in 1...13 {
                let from = before.map { #","before":\#($0)"# } ?? ""
                try await probe.send(#"{"type":"history","req":\#(req),"board":"main","limit":50\#(from)}"#)
                let page = try await probe.expect(type: "history")
                let got = try #require(page["activities"] as? [[String: Any]]).compactMap { $0["seq"] as? Int }
                #expect(!got.isEmpty && got.count < 13, "a page of \(got.count) records")
                #expect(got.count * 8_000 <= cap, "the page passes the cap: \(got.count) records")
                // As many as fit: one more record (as large as the largest here) would pass the cap. A page cut by
                // halving the count held half of what fits, or less.
                if page["more"] as? Bool == true {
                    let records = try #require(page["activities"] as? [[String: Any]])
                    let sizes = try records.map { try JSONSerialization.data(withJSONObject: $0).count }
                    #expect(sizes.reduce(0, +) + sizes.max()! > cap, "a page of \(got.count) records, \(sizes) bytes")
                }
                seqs = got + seqs
                guard page["more"] as? Bool == true, let first = got.first else { break }
                before = first
            }
            #expect(seqs == Array(1...13))
            // The connection is still open.
            try await probe.send(#"{"type":"ping","req":99}"#)
            _ = try await probe.expect(type: "pong")
            await probe.close()
        }
    }

    @Test func aResumeFromFurtherBackThanTheHistoryAgeGetsASnapshot() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect()
            for mut in 1...3 {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"m\#(mut)"}}"#)
                _ = try await probe.expect(type: "ack")
            }
            try await probe.send(#"{"type":"subscribe","board":"main"}"#)
            let epoch = try #require(try await probe.expect(type: "snapshot")["epoch"] as? String)
            _ = try await probe.expect(type: "subscribed")
            // Within history_age_ms (24 h): the missed deltas.
            clock.advance(by: 23 * 3_600_000)
            try await probe.send(#"{"type":"subscribe","board":"main","since":1,"epoch":"\#(epoch)"}"#)
            #expect(try await probe.expect(type: "delta")["seq"] as? Int == 2)
            _ = try await probe.expect(type: "delta")
            _ = try await probe.expect(type: "subscribed")
            // Past it: a snapshot, although the log still holds the changes.
            clock.advance(by: 2 * 3_600_000)
            try await probe.send(#"{"type":"subscribe","board":"main","since":1,"epoch":"\#(epoch)"}"#)
            let snapshot = try await probe.expect(type: "snapshot")
            #expect(snapshot["reason"] as? String == "resync")
            #expect(snapshot["seq"] as? Int == 3)
            // fetch decides exactly as subscribe does: the same range gets the same resync snapshot, then ok.
            _ = try await probe.expect(type: "subscribed")
            try await probe.send(#"{"type":"fetch","req":3,"board":"main","from":2,"to":3}"#)
            let fetched = try await probe.expect(type: "snapshot")
            #expect(fetched["reason"] as? String == "resync")
            #expect(fetched["req"] as? Int == 3)
            #expect(try await probe.expect(type: "ok")["req"] as? Int == 3)
            await probe.close()
        }
    }
}
