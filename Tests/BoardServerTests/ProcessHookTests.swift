import BoardTesting
import Foundation
import Testing

/// Webhook deliveries across a `kill -9` of the real corkd: the queue is the durable event log read from
/// each hook's stored cursor, so every change is delivered, in seq order, and a change is delivered twice only as a
/// retry (the same delivery id, never a change after one already delivered).
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct ProcessHookTests {
    static let options = [
        "--hooks-allow-http-loopback", "--hooks-retry-initial-ms", "50", "--hooks-retry-max-ms", "200",
    ]

    /// An owner connection to the running corkd.
    static func owner(_ corkd: CorkdProcess) async throws -> HookDeliveryTests.Owner {
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned(), timeout: .seconds(15))
        try await probe.send(#"{"type":"hello","version":1,"client":"hook-test","token":"\#(corkd.ownerToken)"}"#)
        _ = try await probe.expect(type: "welcome")
        return HookDeliveryTests.Owner(probe)
    }

    @Test func everyChangeIsDeliveredInOrderAfterAKill9AndRepeatsAreRetriesOnly() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(options: Self.options)
        try await withHookReceiver(secret: HookDeliveryTests.secret, fail: 3, logDirectory: corkd.logDirectory) { receiver in
            var owner = try await Self.owner(corkd)
            let hook = try await owner.addHook(receiver.url)
            var expected: [Int] = []
            for n in 1...12 { expected.append(try await owner.apply(#"{"kind":"card.add","card":"a\#(n)","title":"Before \#(n)"}"#)) }
            // Some delivered, the rest queued (or in flight) when corkd dies.
            #expect(await receiver.wait { $0.count >= 4 }, "\(receiver.log)")
            try await corkd.kill9()
            await owner.probe.close()
            let before = receiver.deliveries.count

            try await corkd.restart(options: Self.options)
            owner = try await Self.owner(corkd)
            for n in 1...5 { expected.append(try await owner.apply(#"{"kind":"card.add","card":"b\#(n)","title":"After \#(n)"}"#)) }
            let all = await receiver.wait { Set($0.map(\.seq)).count >= expected.count }
            #expect(all, "accepted \(receiver.deliveries.map(\.seq)), expected \(expected); receiver: \(receiver.log)")

            let deliveries = receiver.deliveries
            var firstSeen: [Int] = []
            var highest = 0
            for delivery in deliveries {
                #expect(delivery.delivery == "\(hook).\(delivery.seq)")
                if firstSeen.contains(delivery.seq) {
                    // A repeat: the receiver had it already, and it comes before anything new.
                    #expect(delivery.repeatDelivery && delivery.seq <= highest, "\(deliveries.map(\.seq))")
                } else {
                    #expect(!delivery.repeatDelivery && delivery.seq > highest, "out of order: \(deliveries.map(\.seq))")
                    firstSeen.append(delivery.seq)
                    highest = delivery.seq
                }
            }
            #expect(firstSeen == expected)
            #expect(deliveries.count - expected.count <= 1, "at most the delivery in flight at the kill repeats: \(deliveries.map(\.seq))")
            #expect(before < deliveries.count, "deliveries resumed after the restart")
            var listed = try await owner.hooks()
            for _ in 0..<200 where listed.first?["delivered_seq"] as? Int != expected.last {
                try await Task.sleep(for: .milliseconds(20))
                listed = try await owner.hooks()
            }
            #expect(listed.first?["delivered_seq"] as? Int == expected.last && listed.first?["failures"] as? Int == 0)
            await owner.probe.close()
        }
    }
}
