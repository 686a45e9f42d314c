import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// Hostile input over real TLS: each test asserts the error code and whether the connection stays open
/// (RELIABILITY.md b2, b3).
@Suite(.timeLimit(.minutes(2))) struct HostileInputTests {
    /// Sends `line` on an authenticated connection and expects `code`, then proves the connection still works.
    func expectStaysOpen(_ server: TestServer, _ line: [UInt8], code: String) async throws {
        let probe = try await server.connect()
        try await probe.sendRaw(line + [0x0A])
        let error = try await probe.expect(type: "error")
        #expect(error["code"] as? String == code, "\(String(decoding: line.prefix(80), as: UTF8.self))")
        #expect(error["close"] == nil)
        try await probe.send(#"{"type":"ping","req":"still-open"}"#)
        #expect(try await probe.expect(type: "pong")["req"] as? String == "still-open")
        await probe.close()
    }

    @Test func badJSONInvalidUTF8DepthDuplicateKeysAndFloatsKeepTheConnection() async throws {
        try await withTestServer { server in
            try await expectStaysOpen(server, Array("{not json".utf8), code: "bad_json")
            try await expectStaysOpen(server, Array(#"{"type":"ping","req":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), code: "invalid_utf8")
            let deep = #"{"type":"ping","req":"#+String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000) + "}"
            try await expectStaysOpen(server, Array(deep.utf8), code: "depth_exceeded")
            try await expectStaysOpen(
                server, Array(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.close","card":"a","card":"b"}}"#.utf8),
                code: "duplicate_key")
            try await expectStaysOpen(
                server, Array(#"{"type":"op","board":"main","mut":1.0,"op":{"kind":"chat","text":"x"}}"#.utf8), code: "bad_request")
            try await expectStaysOpen(
                server, Array(#"{"type":"fetch","board":"main","from":1,"to":9007199254740993}"#.utf8), code: "bad_request")
            try await expectStaysOpen(server, Array(#"{"type":"teleport"}"#.utf8), code: "unknown_type")
            try await expectStaysOpen(
                server, Array(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.explode","card":"a"}}"#.utf8), code: "unknown_op")
        }
    }

    @Test func anOpBeforeHelloIsUnauthenticatedAndCloses() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            try await probe.send(#"{"type":"subscribe","board":"main"}"#)
            let lines = try await probe.expectClose()
            #expect(lines.count == 1)
            #expect(lines.first?.contains(#""code":"unauthenticated""#) == true)
            #expect(!(lines.first?.contains("snapshot") ?? true))
        }
    }

    @Test func aWrongTokenFailsAndCloses() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            try await probe.send(#"{"type":"hello","version":1,"client":"t","token":"ck_wrong"}"#)
            let lines = try await probe.expectClose()
            #expect(lines.first?.contains(#""code":"auth_failed""#) == true)
        }
    }

    @Test func aRevokedUserIsClosedWithinASecondAndCannotReturn() async throws {
        try await withTestServer { server in
            let token = try await server.invite("mallory")
            let probe = try await server.connect(token: token)
            let started = ContinuousClock.now
            _ = try await server.store.revokeTokens(of: "mallory", now: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
            _ = try await server.store.enqueue(.revoke(user: "mallory"), now: Timestamp(milliseconds: 0))
            let lines = try await probe.expectClose()
            // How fast is a figure, not an assertion (no timing assertions): the probe's own timeout bounds the wait.
            print("revoke → closed: \(ContinuousClock.now - started)")
            #expect(lines.contains { $0.contains(#""code":"token_revoked""#) })
            let again = try await server.connect(hello: false)
            try await again.send(#"{"type":"hello","version":1,"client":"t","token":"\#(token)"}"#)
            #expect(try await again.expectClose().first?.contains("token_revoked") == true)
        }
    }

    @Test func aLineOverTheLimitClosesWithLineTooLong() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            let long = #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":""# + String(repeating: "x", count: 70_000) + #""}}"#
            try await probe.send(long)
            let lines = try await probe.expectClose()
            #expect(lines.contains { $0.contains(#""code":"line_too_long""#) })
        }
    }

    @Test func beforeAuthenticationTheLimitIs4KiB() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            try await probe.send(#"{"type":"hello","version":1,"client":""# + String(repeating: "x", count: 5000) + #"","token":"t"}"#)
            #expect(try await probe.expectClose().contains { $0.contains("line_too_long") })
        }
    }

    @Test func aCardIdFromAnotherBoardIsNotFound() async throws {
        try await withTestServer { server in
            let probe = try await server.connect()
            try await probe.send(#"{"type":"board.create","req":1,"board":"second","name":"Second"}"#)
            _ = try await probe.expect(type: "ok")
            try await probe.send(#"{"type":"op","board":"second","mut":1,"op":{"kind":"card.add","card":"secret","title":"on board two"}}"#)
            _ = try await probe.expect(type: "ack")
            try await probe.send(#"{"type":"op","board":"main","mut":2,"op":{"kind":"card.close","card":"secret"}}"#)
            let reject = try await probe.expect(type: "reject")
            #expect(reject["code"] as? String == "not_found")
            await probe.close()
        }
    }

    @Test func tooManyBadLinesClose() async throws {
        try await withTestServer(configure: { $0.limits.errorBudget = 5 }) { server in
            let probe = try await server.connect()
            for _ in 0..<6 { try await probe.send("nope") }
            let lines = try await probe.expectClose()
            #expect(lines.filter { $0.contains("bad_json") }.count == 5)
            #expect(lines.last?.contains("too_many_errors") == true)
        }
    }

    @Test func theRateLimitRejectsWithRetryAfter() async throws {
        // A frozen clock: the bucket never refills, however slowly the machine runs the test.
        try await withTestServer(clock: FrozenClock(), configure: { $0.limits.rateOpsPerS = 5; $0.limits.rateBurst = 5 }) { server in
            let probe = try await server.connect()
            for mut in 1...8 {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(mut)"}}"#)
            }
            var acks = 0
            var limited = 0
            while acks + limited < 8 {
                let object = try #require(try await probe.nextObject())
                switch object["type"] as? String {
                case "ack": acks += 1
                case "reject":
                    #expect(object["code"] as? String == "rate_limited")
                    #expect((object["retry_after_ms"] as? Int ?? 0) > 0)
                    limited += 1
                default: break
                }
            }
            #expect(acks == 5)
            #expect(limited == 3)
            await probe.close()
        }
    }

    @Test func aResendOfAnAppliedOpIsAnsweredWithItsAckEvenOverTheRate() async throws {
        // Otherwise a client that re-sends rate-limited ops under new muts would apply this one twice.
        try await withTestServer(clock: FrozenClock(), configure: { $0.limits.rateOpsPerS = 2; $0.limits.rateBurst = 2 }) { server in
            let probe = try await server.connect(clientID: "c-1")
            for mut in 1...2 {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(mut)"}}"#)
                _ = try await probe.expect(type: "ack")
            }
            try await probe.send(#"{"type":"op","board":"main","mut":3,"op":{"kind":"chat","text":"3"}}"#)
            let limited = try await probe.expect(type: "reject")
            #expect(limited["code"] as? String == "rate_limited")
            try await probe.send(#"{"type":"op","board":"main","mut":2,"op":{"kind":"chat","text":"2"}}"#)
            let again = try await probe.expect(type: "ack")
            #expect(again["mut"] as? Int == 2)
            #expect(again["seq"] as? Int == 2)
            await probe.close()
        }
    }

    @Test func unauthenticatedConnectionsPerAddressAreCapped() async throws {
        // The first two stay unauthenticated while the third is refused (a full TLS handshake and close now): the
        // auth timeout must not close them meanwhile on a loaded machine.
        try await withTestServer(configure: { $0.limits.preauthPerIP = 2; $0.limits.authTimeoutMs = 120_000 }) { server in
            let first = try await server.connect(hello: false)
            let second = try await server.connect(hello: false)
            try await first.send(#"{"type":"ping","req":1}"#)
            _ = try await first.expect(type: "pong")
            try await second.send(#"{"type":"ping","req":2}"#)
            _ = try await second.expect(type: "pong")
            // The third is refused with server_full (FinalLineTests checks that it is never a reset).
            do {
                let third = try await server.connect(hello: false)
                let lines = try await third.expectClose()
                #expect(lines.first?.contains(#""code":"server_full""#) ?? true, "\(lines)")
                #expect(lines.count <= 1)
            } catch {
                // Refused during the handshake: also a refusal.
            }
            // Once one of them authenticates it no longer counts: there is room again.
            try await first.send(#"{"type":"hello","version":1,"client":"t","token":"\#(server.ownerToken)"}"#)
            _ = try await first.expect(type: "welcome")
            let fourth = try await server.connect(hello: false)
            try await fourth.send(#"{"type":"ping","req":4}"#)
            #expect(try await fourth.expect(type: "pong")["req"] as? Int == 4)
            await first.close()
            await second.close()
            await fourth.close()
        }
    }

    @Test func repeatedWrongTokensFromOneAddressAreSlowedDown() async throws {
        try await withTestServer { server in
            var lastTook: Duration = .zero
            for attempt in 1...11 {
                let probe = try await server.connect(hello: false)
                let started = ContinuousClock.now
                try await probe.send(#"{"type":"hello","version":1,"client":"t","token":"ck_guess\#(attempt)"}"#)
                let lines = try await probe.expectClose()
                lastTook = ContinuousClock.now - started
                #expect(lines.first?.contains("auth_failed") == true)
                #expect(!(lines.first?.contains("ck_guess") ?? true), "the token is never echoed")
            }
            #expect(lastTook >= .milliseconds(900), "the 11th failure within a minute is delayed")
            // Someone with the right token from the same address still gets in.
            let owner = try await server.connect()
            await owner.close()
        }
    }
}
