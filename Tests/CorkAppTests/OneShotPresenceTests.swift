import BoardTesting
import BoardWire
import Foundation
import Testing

/// One-shot `cork` commands subscribe without presence (`"presence":false`), so they never show up as
/// "X joined" / "X left" in anyone's feed.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct OneShotPresenceTests {
    @Test func oneShotCommandsAreNotJoins() async throws {
        try await withCorkd { corkd in
            let watcher = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await watcher.send(#"{"type":"hello","version":1,"client":"watcher","token":"\#(corkd.ownerToken)"}"#)
            _ = try await watcher.expect(type: "welcome")
            try await watcher.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await watcher.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])

            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            _ = try await cork.ok(["add", "From a script"])
            _ = try await cork.ok(["show"])
            _ = try await cork.ok(["comment", "#1", "a note"])

            // Everything the watcher got until the pong: deltas, no presence.
            try await watcher.send(#"{"type":"ping","req":"end"}"#)
            var types: [String] = []
            while true {
                let object = try #require(try await watcher.nextObject())
                let type = object["type"] as? String ?? ""
                if type == "pong" { break }
                if type != "ping" { types.append(type) }
            }
            #expect(types.filter { $0 == "delta" }.count == 2, "\(types)")
            #expect(!types.contains { $0.hasPrefix("presence") }, "\(types)")
            await watcher.close()
        }
    }
}
