import BoardTesting
import Foundation
import Testing

/// The error contract's "one final error line before any close, when it can": a connection
/// over the pre-auth cap gets its `server_full` line, not a reset during the TLS handshake.
@Suite(.serialized, .timeLimit(.minutes(2))) struct FinalLineTests {
    @Test func aConnectionOverThePreauthCapGetsTheServerFullLine() async throws {
        // The holder stays unauthenticated for the whole test: the auth timeout must not free its place.
        try await withTestServer(configure: { $0.limits.preauthPerIP = 1; $0.limits.authTimeoutMs = 120_000 }) { server in
            let holder = try await server.connect(hello: false)
            try await holder.send(#"{"type":"ping","req":1}"#)
            _ = try await holder.expect(type: "pong")
            // The race between the refusal and the handshake is lost sometimes, not always: try it often.
            for round in 1...10 {
                let refused: WireProbe
                do {
                    refused = try await server.connect(hello: false)
                } catch {
                    Issue.record("round \(round): the TLS handshake failed instead of a server_full line: \(error)")
                    continue
                }
                // A client says hello at once; the server must still get its line out.
                try? await refused.send(#"{"type":"hello","version":1,"client":"t","token":"\#(server.ownerToken)"}"#)
                let lines = try await refused.expectClose()
                #expect(lines.count == 1, "round \(round): \(lines)")
                #expect(lines.first?.contains(#""code":"server_full""#) == true, "round \(round): \(lines)")
                #expect(lines.first?.contains(#""close":true"#) == true, "round \(round): \(lines)")
            }
            await holder.close()
        }
    }
}
