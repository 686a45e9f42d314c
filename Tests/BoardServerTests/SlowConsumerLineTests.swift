import BoardServer
import BoardTesting
import Foundation
import NIOCore
import Testing

/// RELIABILITY.md b4 R5: a subscriber that stops reading is cut as a slow consumer, and the
/// `slow_consumer` line is the last thing it reads when it reads again — the line is written past the cap and the
/// close waits (at most `write_timeout_ms`) for it to reach the socket.
@Suite(.timeLimit(.minutes(3))) struct SlowConsumerLineTests {
    /// The cut writes the line past the cap and the close waits (at most `write_timeout_ms`) for it to reach the
    /// socket. A close that did not wait would discard the queued bytes and the line with them once the TLS layer's
    /// own wait for `close_notify` (5 s) ended, so the line would arrive only when the client read again within 5 s
    /// of the cut — on a loaded machine it often would not. The test waits 6 s after the cut before reading, so such
    /// a close fails it every time.
    @Test
    func R5_aCutSlowConsumerReadsItsSlowConsumerLineLast() async throws {
        let metrics = ServerMetrics()
        try await withTestServer(configure: {
            $0.limits.outboxBytes = 256 * 1024
            $0.limits.writeTimeoutMs = 20_000
            $0.limits.rateOpsPerS = 100_000
            $0.limits.rateBurst = 100_000
            $0.metrics = metrics
        }) { server in
            let slow = try await server.connect(clientID: "slow")
            // A small receive buffer, so that what the kernel holds for it is small beside the ~10 MB sent: the cut
            // comes from the outbox cap, whatever the machine's TCP autotuning would have allowed.
            try await slow.channel.channel.setOption(ChannelOptions.socketOption(.so_rcvbuf), value: 32 * 1024)
            try await slow.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            _ = try await slow.expect(type: "subscribed", skipping: ["snapshot", "ping"])
            // From here on the slow client reads nothing: its socket buffers fill, then its outbox, until the cut.
            let writer = try await server.connect(clientID: "writer")
            let text = String(repeating: "x", count: 4_000)
            let total = 2_400  // ~10 MB of deltas: more than the kernel's buffers and the outbox together
            var mut = 0
            while mut < total, metrics.value(of: "corkd_slow_consumer_closes_total") == 0 {
                for _ in 0..<20 {
                    mut += 1
                    try await writer.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(text)"}}"#)
                }
                for _ in 0..<20 { _ = try await writer.expect(type: "ack", skipping: ["ping"]) }
            }
            // The cut is counted when the server closes the session, which may come just after the last ack read.
            let deadline = ContinuousClock.now + .seconds(30)
            while metrics.value(of: "corkd_slow_consumer_closes_total") == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(
                metrics.value(of: "corkd_slow_consumer_closes_total") == 1,
                "the slow consumer was not cut after \(mut) ops of 4 KB (outbox cap 256 KiB, receive buffer 32 KiB)")
            // Longer than TLS's wait for close_notify, well within write_timeout_ms.
            try await Task.sleep(for: .seconds(6))
            await writer.close()
            // Now it reads everything it was sent, up to the close.
            var lines: [[String: Any]] = []
            while let object = try await slow.nextObject() { lines.append(object) }
            let deltas = lines.filter { $0["type"] as? String == "delta" }.compactMap { $0["seq"] as? Int }
            #expect(deltas.count < mut, "cut before it was sent everything")
            #expect(deltas == Array(deltas.first.map { $0..<($0 + deltas.count) } ?? 0..<0), "in order, no gap")
            let last = try #require(lines.last)
            #expect(last["type"] as? String == "error" && last["code"] as? String == "slow_consumer", "last line: \(last)")
            #expect(last["close"] as? Bool == true)
        }
    }
}
