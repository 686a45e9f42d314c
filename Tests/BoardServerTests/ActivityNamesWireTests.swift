import BoardTesting
import Foundation
import Testing

/// Where an activity record's `names` travel (Protocol.md, "Activity records"): in `history` replies and the stored
/// record, never in a `delta`, whose receivers hold the board of that moment.
@Suite(.timeLimit(.minutes(1))) struct ActivityNamesWireTests {
    @Test func deltasLeaveNamesOutAndHistoryCarriesThem() async throws {
        try await withTestServer { server in
            let probe = try await server.connect(clientID: "names")
            try await probe.send(#"{"type":"subscribe","req":1,"board":"main"}"#)
            _ = try await probe.expect(type: "snapshot")
            _ = try await probe.expect(type: "subscribed")
            try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"Gamma"}}"#)
            _ = try await probe.expect(type: "ack")
            let delta = try await probe.expect(type: "delta")
            let activity = try #require(delta["activity"] as? [String: Any])
            #expect(activity["names"] == nil, "a delta carries no names: \(activity)")
            try await probe.send(#"{"type":"op","board":"main","mut":2,"op":{"kind":"card.edit","card":"k1","title":"Gamma renamed"}}"#)
            _ = try await probe.expect(type: "ack")
            _ = try await probe.expect(type: "delta")
            try await probe.send(#"{"type":"history","req":2,"board":"main","card":"k1"}"#)
            let page = try await probe.expect(type: "history")
            let records = try #require(page["activities"] as? [[String: Any]])
            let titles = records.map { ($0["names"] as? [String: Any])?["title"] as? String }
            #expect(titles == ["Gamma", "Gamma renamed"], "\(records)")
            await probe.close()
        }
    }
}
