import BoardServer
import BoardTesting
import BoardCore
import BoardWire
import Foundation
import NIOCore
import Testing

/// Fan-out under pressure and liveness: slow consumers, heartbeats (RELIABILITY.md b4 R5, b1 T7).
@Suite(.timeLimit(.minutes(5))) struct FanOutTests {
    @Test func aSubscriberThatNeverReadsIsClosedWhileTwentyOthersKeepReceiving() async throws {
        let metrics = ServerMetrics()
        try await withTestServer(configure: {
            $0.metrics = metrics
            // The default 1 MiB outbox; a stalled write is given up after 5 s, and the cut line waits as long for
            // the slow subscriber to read it. A reader's socket never stalls: a
            // round (4 deltas of ~3 KB) fits in its socket buffers, so however late the test drains it (the whole
            // suite on two cores), the server's writes to it complete; the slow subscriber's 4.8 MB do not fit.
            // Readers are silent for the whole test, which under that load took over a minute: the heartbeat must
            // not close them meanwhile.
            $0.limits.writeTimeoutMs = 5_000
            $0.limits.heartbeatMs = 600_000
            $0.limits.rateOpsPerS = 100_000
            $0.limits.rateBurst = 100_000
            $0.limits.connectionsPerUser = 100
        }) { server in
            // Each wait for a line is bounded by 30 s, not 10: at the end of a full run this test shares the two
            // event loops with IdleMemoryTests' thousands of TLS handshakes, and a wait once passed 10 s there.
            let wait = TimeAmount.seconds(30)
            let slow = try await server.connect(clientID: "slow", timeout: wait)
            try await slow.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await slow.expect(type: "snapshot")
            var readers: [WireProbe] = []
            for i in 0..<20 {
                let reader = try await server.connect(clientID: "reader-\(i)", timeout: wait)
                try await reader.send(#"{"type":"subscribe","board":"main"}"#)
                _ = try await reader.expect(type: "subscribed", skipping: ["snapshot", "presence", "presence.state", "ping"])
                readers.append(reader)
            }
            // The slow subscriber's end is read as soon as the server counts the cut, beside the rounds that go on:
            // Protocol.md promises its `slow_consumer` line only to a client that reads within `write_timeout_ms` of
            // the cut (the server then closes anyway). Read after the last round, the line would be lost whenever the
            // remaining rounds took longer than that plus TLS's wait for close_notify (a loaded CI run).
            async let slowEnd = Self.readToTheEndOnceCut(slow, metrics: metrics, within: .seconds(120))
            let writer = try await server.connect(clientID: "writer", timeout: wait)
            let text = String(repeating: "x", count: 3000)
            let total = 1500
            var mut = 0
            // Send in rounds of 4 (~13 KB of deltas, well within a loopback socket's first buffers) and drain every
            // reader after each round: the readers keep up, one by one, while the slow subscriber reads nothing.
            var received = Array(repeating: 0, count: readers.count)
            while mut < total {
                for _ in 0..<4 {
                    mut += 1
                    try await writer.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(text)"}}"#)
                }
                for _ in 0..<4 {
                    _ = try await labelled("the writer's ack of round \(mut)") {
                        try await writer.expect(type: "ack", skipping: ["delta", "presence", "presence.state", "ping"])
                    }
                }
                for (i, reader) in readers.enumerated() {
                    while received[i] < mut {
                        let delta = try await labelled("reader \(i)'s delta \(received[i] + 1)") { try await reader.expect(type: "delta") }
                        #expect(delta["seq"] as? Int == received[i] + 1, "reader \(i) sees every seq in order")
                        received[i] += 1
                    }
                }
            }
            #expect(received.allSatisfy { $0 == total })
            // The slow subscriber was cut off as a slow consumer (the server counts it), and nothing it holds is
            // lost: it resumes from the last seq it read. It read what its buffers held, then the `slow_consumer`
            // error as the last line, then the end of the connection (a wait that runs out fails the test). (Loaded
            // full runs once found that socket still open 30 s on: the PostgreSQL test watchdog had inherited the
            // server's sockets; see PostgresTestServerTests.)
            let end = try await slowEnd
            #expect(metrics.value(of: "corkd_slow_consumer_closes_total") == 1, "the slow subscriber was cut")
            let lastSeq = end.lastSeq
            #expect(end.lastType == "error" && end.lastCode == "slow_consumer",
                    "the slow subscriber's last line before the end: \(end.last)")
            #expect(lastSeq > 0 && lastSeq < total, "the slow subscriber read up to seq \(lastSeq)")
            let resumed = try await server.connect(clientID: "slow", timeout: wait)
            try await resumed.send(#"{"type":"subscribe","board":"main"}"#)
            let epoch = try #require(try await resumed.expect(type: "snapshot")["epoch"] as? String)
            _ = try await resumed.expect(type: "subscribed")
            try await resumed.send(#"{"type":"subscribe","board":"main","since":\#(lastSeq),"epoch":"\#(epoch)"}"#)
            var next = lastSeq
            while next < total {
                let delta = try await resumed.expect(type: "delta")
                #expect(delta["seq"] as? Int == next + 1)
                next += 1
            }
            for reader in readers { await reader.close() }
            await writer.close()
            await resumed.close()
        }
    }

    /// What a cut subscriber read last: the seq of its last delta, and its last line.
    struct SlowEnd: Sendable {
        var lastSeq = 0
        var lastType: String?
        var lastCode: String?
        var last = ""
    }

    /// Waits (polling the server's counter, up to `bound`) until the server has cut a slow consumer, then reads
    /// `probe` to its end and closes it.
    private static func readToTheEndOnceCut(_ probe: sending WireProbe, metrics: ServerMetrics, within bound: Duration)
        async throws -> SlowEnd
    {
        let cutBy = ContinuousClock.now + bound
        while metrics.value(of: "corkd_slow_consumer_closes_total") ?? 0 < 1, ContinuousClock.now < cutBy {
            try await Task.sleep(for: .milliseconds(50))
        }
        var end = SlowEnd()
        while let line = try await probe.next() {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestFailure("the slow subscriber's line after seq \(end.lastSeq) is not an object: \(line)")
            }
            if object["type"] as? String == "delta" { end.lastSeq = object["seq"] as? Int ?? end.lastSeq }
            end.lastType = object["type"] as? String
            end.lastCode = object["code"] as? String
            end.last = String(line.prefix(300))
        }
        await probe.close()
        return end
    }

    /// Says which wait failed.
    private func labelled<T>(_ label: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw TestFailure("\(label): \(error)") }
    }

    @Test func theServerPingsAndClosesASilentConnectionAfterTwoIntervals() async throws {
        // 5 s: the silence counts from the accept, and on a loaded machine (the whole suite at once) the TLS
        // handshake and the hello took over a second; with 2 s, a run of the whole suite (2026-11-28) had the server
        // ping three times and close without ever answering the hello, its session task waiting for a thread.
        try await withTestServer(configure: { $0.limits.heartbeatMs = 5_000 }) { server in
            // Order, not timing (no timing assertions in tests): pinged first, then closed, within the probe's bound.
            // The hello is sent by hand and every line kept: on a loaded machine the first ping may come before
            // `welcome`, and the close (two intervals after the hello) may come before a second ping.
            let silent = try await server.connect(hello: false)
            try await silent.send(#"{"type":"hello","version":1,"client":"silent","token":"\#(server.ownerToken)"}"#)
            let lines = try await silent.expectClose()
            #expect(lines.contains { $0.contains(#""type":"welcome""#) }, "\(lines)")
            let ping = lines.firstIndex { $0.contains(#""type":"ping""#) }
            #expect(ping != nil, "closed without a ping first: \(lines)")
        }
    }

    @Test func aConnectionThatAnswersPingsStaysOpen() async throws {
        // A pong is due within about an interval of its ping (two intervals after the previous line). 2 s was not
        // room enough: in a CI run of the whole suite on two cores this test's task waited longer than that for a
        // thread, and the server rightly closed the connection as silent. 5 s (the test takes about 10 s).
        try await withTestServer(configure: { $0.limits.heartbeatMs = 5_000 }) { server in
            let alive = try await server.connect()
            for _ in 0..<2 {
                _ = try await alive.expect(type: "ping", skipping: [])
                try await alive.send(#"{"type":"pong"}"#)
            }
            try await alive.send(#"{"type":"ping","req":"still"}"#)
            #expect(try await alive.expect(type: "pong")["req"] as? String == "still")
            await alive.close()
        }
    }

    @Test func aDragThatIsNotRefreshedExpiresToViewing() async throws {
        try await withTestServer(configure: { $0.limits.presenceTimeoutMs = 200 }) { server in
            let watcher = try await server.connect(clientID: "watcher")
            try await watcher.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await watcher.expect(type: "subscribed", skipping: ["snapshot"])
            let dragger = try await server.connect(clientID: "dragger")
            try await dragger.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await dragger.expect(type: "subscribed", skipping: ["snapshot"])
            try await dragger.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"t"}}"#)
            _ = try await dragger.expect(type: "ack")
            try await dragger.send(#"{"type":"presence","board":"main","state":"dragging","card":"k1","column":"doing","index":0}"#)
            var states: [String] = []
            while states.last != "viewing" || states.count < 2 {
                let presence = try await watcher.expect(type: "presence", skipping: ["presence.state", "delta", "ping"])
                states.append(presence["state"] as? String ?? "?")
            }
            #expect(states.contains("dragging"))
            #expect(states.last == "viewing")
            // Only the state timed out, not the presence (Protocol.md, "presence"): no presence.left, and a newcomer
            // still sees the dragger, viewing.
            let newcomer = try await server.connect(clientID: "newcomer")
            try await newcomer.send(#"{"type":"subscribe","board":"main"}"#)
            let present = try await newcomer.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            let sessions = present["sessions"] as? [[String: Any]] ?? []
            #expect(sessions.count == 3 && sessions.allSatisfy { $0["state"] as? String == "viewing" }, "\(sessions)")
            try await watcher.send(#"{"type":"ping","req":"end"}"#)
            let rest = try await watcher.expect(type: "pong", skipping: ["presence", "ping"])
            #expect(rest["req"] as? String == "end", "no presence.left came before the pong")
            await newcomer.close()
            await watcher.close()
            await dragger.close()
        }
    }

    /// A dragger and a watcher on one board, with `presence_rate_per_s` 5 on a frozen clock (the bucket never
    /// refills: only the burst of 5 and what the board holds back get through).
    /// `holdMs`: how long the board holds a dropped position (nil: until the rate allows, 200 ms here).
    static func withDragger(
        clock: any ServerClock = FrozenClock(), holdMs: UInt64? = nil, _ body: @Sendable (WireProbe, WireProbe) async throws -> Void
    ) async throws {
        try await withTestServer(clock: clock, configure: {
            $0.limits.presenceRatePerS = 5
            $0.presenceHoldMs = holdMs
        }) { server in
            let watcher = try await server.connect(clientID: "watcher")
            try await watcher.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await watcher.expect(type: "subscribed", skipping: ["snapshot"])
            let dragger = try await server.connect(clientID: "dragger")
            try await dragger.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await dragger.expect(type: "subscribed", skipping: ["snapshot"])
            try await body(watcher, dragger)
            await watcher.close()
            await dragger.close()
        }
    }

    /// The watcher's next `presence` line about a session.
    static func nextPresence(_ watcher: WireProbe) async throws -> [String: Any] {
        while true {
            let presence = try await watcher.expect(type: "presence", skipping: ["presence.state", "ping"])
            if presence["session"] as? String != nil { return presence }
        }
    }

    static func drag(_ dragger: WireProbe, to indexes: Range<Int>) async throws {
        for index in indexes {
            try await dragger.send(#"{"type":"presence","board":"main","state":"dragging","column":"doing","index":\#(index)}"#)
        }
    }

    @Test func aFloodOfDragPositionsIsThinnedButTheDropIsNeverLost() async throws {
        // The board holds back the newest dropped position for a minute: the final state comes first and replaces it.
        try await Self.withDragger(holdMs: 60_000) { watcher, dragger in
            try await Self.drag(dragger, to: 0..<50)
            try await dragger.send(#"{"type":"presence","board":"main","state":"viewing"}"#)
            var drags = 0
            while true {
                let presence = try await Self.nextPresence(watcher)
                if presence["state"] as? String == "dragging" { drags += 1 }
                if presence["state"] as? String == "viewing" && drags > 0 { break }
            }
            // The burst of 5 got through, then the final state; the positions in between were dropped.
            #expect(drags == 5)
        }
    }

    @Test func theLastPositionOfABurstOverTheRateReachesTheOthers() async throws {
        // Before: the watcher saw indexes 0–4 and never 49, so the dragger's card stood where it was 45 moves ago.
        try await Self.withDragger(clock: WallClock()) { watcher, dragger in
            try await Self.drag(dragger, to: 0..<50)
            var seen: [Int] = []
            while seen.last != 49 {
                let presence = try await Self.nextPresence(watcher)
                if let index = presence["index"] as? Int { seen.append(index) }
            }
            #expect(seen.prefix(5) == [0, 1, 2, 3, 4], "the burst first: \(seen)")
        }
    }

    @Test func aHeldPositionTakesATokenLikeAnyOtherUpdate() async throws {
        // An outside client counted twice presence_rate_per_s getting through at a steady 15–30 positions a second:
        // the held positions were sent on top of the rate. Time moves here only when the test moves it.
        let clock = ManualClock()
        try await Self.withDragger(clock: clock) { watcher, dragger in
            try await Self.drag(dragger, to: 0..<20)
            // A ping answered after the drags: the session has handed all 20 to the board (lines are taken in order).
            try await dragger.send(#"{"type":"ping","req":"drags"}"#)
            _ = try await dragger.expect(type: "pong")
            var seen: [Int] = []
            while seen.last != 4 { if let index = try await Self.nextPresence(watcher)["index"] as? Int { seen.append(index) } }
            // The burst is spent and no time passes: 19 waits for a token. 250 ms later there is one, and 19 goes.
            clock.advance(by: 250)
            while seen.last != 19 { if let index = try await Self.nextPresence(watcher)["index"] as? Int { seen.append(index) } }
            #expect(seen == [0, 1, 2, 3, 4, 19])
            // Spent again: 39 is held with no token to send it, until the state changes, which always goes out and
            // takes the held position's place.
            try await Self.drag(dragger, to: 20..<40)
            try await Task.sleep(for: .milliseconds(500))
            try await dragger.send(#"{"type":"presence","board":"main","state":"viewing"}"#)
            let next = try await Self.nextPresence(watcher)
            #expect(next["state"] as? String == "viewing", "a held position went out without a token: \(next)")
        }
    }
}
