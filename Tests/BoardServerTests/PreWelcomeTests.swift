import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// The lines before `welcome` (Protocol.md, "Connection lifecycle" and "hello"): each test asserts the code and
/// whether the connection stays open.
@Suite(.timeLimit(.minutes(2))) struct PreWelcomeTests {
    @Test func aMalformedHelloIsABadRequestAndTheConnectionStaysOpenForAnother() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            // A string version, no token, no client.
            try await probe.send(#"{"type":"hello","req":1,"version":"1"}"#)
            let error = try await probe.expect(type: "error")
            #expect(error["code"] as? String == "bad_request")
            #expect(error["req"] as? Int == 1)
            #expect(error["close"] == nil)
            try await probe.send(#"{"type":"hello","req":2,"version":1,"client":"t","token":"\#(server.ownerToken)"}"#)
            #expect(try await probe.expect(type: "welcome")["req"] as? Int == 2)
            await probe.close()
        }
    }

    @Test func noHelloWithinTheAuthTimeoutIsUnauthenticatedAndCloses() async throws {
        try await withTestServer(configure: { $0.limits.authTimeoutMs = 300 }) { server in
            let probe = try await server.connect(hello: false)
            let lines = try await probe.expectClose()
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains(#""code":"unauthenticated""#) == true, "\(lines)")
            #expect(lines.first?.contains("auth timeout") == true, "\(lines)")
            #expect(lines.first?.contains(#""close":true"#) == true, "\(lines)")
        }
    }

    /// The auth deadline is for saying hello: a hello that came in time is answered for what it is, however long its
    /// check takes (here the delay for repeated failed logins, 12 s, past a 6 s deadline that leaves a busy machine
    /// time to read the hello; a database outage had the same effect). It had been cut off as "no hello within the
    /// auth timeout", which clients take as final.
    @Test func aHelloInTimeIsAnsweredForWhatItIsWhateverItsCheckTakes() async throws {
        try await withTestServer(configure: { $0.limits.authTimeoutMs = 6_000; $0.failedLoginDelay = .seconds(12) }) { server in
            for attempt in 1...11 {
                let probe = try await server.connect(hello: false)
                try await probe.send(#"{"type":"hello","req":\#(attempt),"version":1,"client":"test","token":"ck_\#(String(repeating: "A", count: 43))"}"#)
                let lines = try await probe.expectClose()
                #expect(lines.count == 1 && lines.first?.contains(#""code":"auth_failed""#) == true, "attempt \(attempt): \(lines)")
            }
        }
    }

    @Test func anUnknownTypeBeforeWelcomeIsUnauthenticatedAndCloses() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            try await probe.send(#"{"type":"teleport","req":3}"#)
            let lines = try await probe.expectClose()
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains(#""code":"unauthenticated""#) == true, "\(lines)")
            #expect(lines.first?.contains(#""close":true"#) == true, "\(lines)")
        }
    }

    @Test func aLineThatIsNotJSONBeforeWelcomeIsUnauthenticatedAndCloses() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            try await probe.send("hello?")
            let lines = try await probe.expectClose()
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains(#""code":"unauthenticated""#) == true, "\(lines)")
        }
    }

    /// A byte order mark makes the line something other than a JSON object, so its `type` cannot be read: before
    /// `welcome` that is `unauthenticated` and a close, even though the rest would be a `hello`.
    @Test func aHelloAfterAByteOrderMarkBeforeWelcomeIsUnauthenticatedAndCloses() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(hello: false)
            let hello = #"{"type":"hello","req":4,"version":1,"client":"t","token":"\#(server.ownerToken)"}"#
            try await probe.sendRaw([0xEF, 0xBB, 0xBF] + Array(hello.utf8) + [0x0A])
            let lines = try await probe.expectClose()
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains(#""code":"unauthenticated""#) == true, "\(lines)")
            #expect(lines.first?.contains(#""close":true"#) == true, "\(lines)")
        }
    }

    @Test func serverFullForTooManySessionsOfAUserEchoesTheHellosReq() async throws {
        try await withTestServer(configure: { $0.limits.connectionsPerUser = 2 }) { server in
            let first = try await server.connect()
            let second = try await server.connect()
            let third = try await server.connect(hello: false)
            try await third.send(#"{"type":"hello","req":21,"version":1,"client":"t","token":"\#(server.ownerToken)"}"#)
            let lines = try await third.expectClose()
            #expect(lines.count == 1, "\(lines)")
            let error = try #require(lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])
            #expect(error["code"] as? String == "server_full")
            #expect(error["req"] as? Int == 21)
            #expect(error["close"] as? Bool == true)
            await first.close()
            await second.close()
        }
    }
}
