import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// `welcome.role` says what kind of account the user has (Protocol.md, "welcome"): `owner` for the server
/// administrator created on first start, `bot` for an account invited as a bot, absent for everyone else. Bot
/// accounts may not create boards.
@Suite(.timeLimit(.minutes(2))) struct AccountRoleTests {
    static func welcome(_ server: TestServer, token: String) async throws -> (WireProbe, [String: Any]) {
        let probe = try await server.connect(hello: false)
        try await probe.send(#"{"type":"hello","req":1,"version":1,"client":"t","token":"\#(token)"}"#)
        return (probe, try await probe.expect(type: "welcome"))
    }

    @Test func theFirstStartOwnerIsWelcomedAsOwner() async throws {
        try await withTestServer { server in
            let (probe, welcome) = try await Self.welcome(server, token: server.ownerToken)
            #expect(welcome["role"] as? String == "owner")
            await probe.close()
        }
    }

    @Test func anOrdinaryUserHasNoAccountRoleEvenAsABoardOwner() async throws {
        try await withTestServer { server in
            let token = try await server.invite("erin", role: .owner)
            let (probe, welcome) = try await Self.welcome(server, token: token)
            #expect(welcome["role"] == nil)
            try await probe.send(#"{"type":"board.create","req":2,"board":"erins","name":"Erin's"}"#)
            #expect(try await probe.expect(type: "ok")["board"] as? String == "erins")
            await probe.close()
        }
    }

    @Test func aBotAccountIsWelcomedAsBotAndCannotCreateBoards() async throws {
        try await withTestServer { server in
            let token = try await server.invite("ci", role: .bot)
            let (probe, welcome) = try await Self.welcome(server, token: token)
            #expect(welcome["role"] as? String == "bot")
            try await probe.send(#"{"type":"board.create","req":2,"board":"bots","name":"Bots"}"#)
            let error = try await probe.expect(type: "error")
            #expect(error["code"] as? String == "forbidden")
            #expect(error["req"] as? Int == 2)
            #expect(error["close"] == nil)
            let owner = try await server.connect()
            try await owner.send(#"{"type":"subscribe","req":3,"board":"bots"}"#)
            #expect(try await owner.expect(type: "error")["code"] as? String == "not_found", "no board was created")
            await owner.close()
            await probe.close()
        }
    }
}
