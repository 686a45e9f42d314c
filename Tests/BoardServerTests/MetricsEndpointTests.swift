import BoardCore
import BoardTesting
import BoardWire
import Foundation
import Testing

@testable import BoardServer
@testable import BoardStore

/// The admin listener (docs/operating.md): known work on a live server, then `GET /metrics` over
/// loopback, and the numbers checked exactly where they are deterministic.
@Suite(.timeLimit(.minutes(2))) struct MetricsEndpointTests {
    static let loopback0 = AdminAddress(host: "127.0.0.1", port: 0)

    @Test func aScrapeCountsOpsRejectsResumesAndConnections() async throws {
        let metrics = ServerMetrics()
        try await withTestServer(configure: {
            $0.metricsAddress = Self.loopback0
            $0.metrics = metrics
        }) { server in
            let port = try #require(metrics.metricsPort)
            let writer = try await server.connect(clientID: "writer")
            try await writer.send(#"{"type":"subscribe","board":"main"}"#)
            let epoch = try #require(try await writer.expect(type: "snapshot")["epoch"] as? String)
            _ = try await writer.expect(type: "subscribed")
            for mut in 1...5 {
                try await writer.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"m\#(mut)"}}"#)
                _ = try await writer.expect(type: "ack")
                _ = try await writer.expect(type: "delta")
            }
            try await writer.send(#"{"type":"op","board":"main","mut":6,"op":{"kind":"card.edit","card":"nope","title":"x"}}"#)
            #expect(try await writer.expect(type: "reject")["code"] as? String == "not_found")
            let reader = try await server.connect(clientID: "reader")
            try await reader.send(#"{"type":"subscribe","board":"main","since":3,"epoch":"\#(epoch)"}"#)
            #expect(try await reader.expect(type: "delta")["seq"] as? Int == 4)
            _ = try await reader.expect(type: "subscribed", skipping: ["delta", "presence", "presence.state", "ping"])

            let reply = try await HTTPProbe.get("/metrics", port: port)
            #expect(reply.status == 200)
            let text = reply.body
            func value(_ series: String) -> Double? { PrometheusText.value(of: series, in: text) }
            #expect(value("corkd_ops_applied_total") == 5, "\(text)")
            #expect(value(#"corkd_ops_rejected_total{code="not_found"}"#) == 1)
            #expect(value(#"corkd_ops_rejected_total{code="wip_limit"}"#) == 0)
            #expect(value(#"corkd_subscribes_total{kind="resume"}"#) == 1)
            #expect(value(#"corkd_subscribes_total{kind="snapshot_initial"}"#) == 1)
            #expect(value(#"corkd_subscribes_total{kind="snapshot_resync"}"#) == 0)
            #expect(value(#"corkd_connections{state="authenticated"}"#) == 2)
            #expect(value(#"corkd_connections{state="preauth"}"#) == 0)
            #expect(value("corkd_subscriptions") == 2)
            #expect(value("corkd_boards_subscribed") == 1)
            #expect(value("corkd_board_subscribers_max") == 2)
            #expect(value("corkd_boards_loaded") == 1)
            #expect(value("corkd_commit_batch_size_sum") == 5)
            let batches = try #require(value("corkd_commit_batch_size_count"))
            #expect((1...5).contains(batches))
            #expect(value("corkd_commit_duration_seconds_count") == batches)
            #expect(value("corkd_commit_failures_total") == 0)
            #expect(value("corkd_slow_consumer_closes_total") == 0)
            #expect(value("corkd_listen_reconnects_total") == 0)
            #expect(value("corkd_notify_lag_seconds") == 0)
            #expect(value("corkd_fanout_queue_bytes") != nil)
            #expect(value("corkd_serving") == 1)
            #expect(value("corkd_tls_handshake_failures_total") == 0)

            // A plaintext client on the TLS port fails its handshake: counted once.
            _ = try? await HTTPProbe.exchange("GET / HTTP/1.0\r\n\r\n", port: server.port)
            let failures = try await Self.eventually(port: port, "corkd_tls_handshake_failures_total") { $0 >= 1 }
            #expect(failures == 1)
            await writer.close()
            await reader.close()
        }
    }

    @Test func badRequestsNeverStopTheListener() async throws {
        let metrics = ServerMetrics()
        try await withTestServer(configure: {
            $0.metricsAddress = Self.loopback0
            $0.metrics = metrics
        }) { server in
            let port = try #require(metrics.metricsPort)
            let garbage = try await HTTPProbe.exchange("\u{1}\u{2} nonsense\r\n\r\n", port: port)
            #expect(garbage.hasPrefix("HTTP/1.1 400"), "\(garbage)")
            // Connect and hang up at once, several times.
            for _ in 1...5 { _ = try? await HTTPProbe.exchange("", port: port, timeout: .seconds(1)) }
            // Half a request, then a hang-up.
            _ = try? await HTTPProbe.exchange("GET /metr", port: port, timeout: .seconds(1))
            #expect(try await HTTPProbe.get("/metrics", port: port, method: "POST").status == 405)
            #expect(try await HTTPProbe.get("/nothing", port: port).status == 404)
            let headers = String(repeating: "X-Long: \(String(repeating: "a", count: 1_000))\r\n", count: 200)
            // 200 KB of headers: answered or cut off, whichever; the listener goes on.
            _ = try? await HTTPProbe.exchange("GET /metrics HTTP/1.1\r\n\(headers)\r\n", port: port)
            let reply = try await HTTPProbe.get("/metrics", port: port)
            #expect(reply.status == 200)
            #expect(PrometheusText.value(of: "corkd_serving", in: reply.body) == 1)
            // The board server is untouched.
            let probe = try await server.connect()
            try await probe.send(#"{"type":"ping","req":1}"#)
            _ = try await probe.expect(type: "pong")
            await probe.close()
        }
    }

    @Test func theHealthPortAnswers503WhileTheStoreCannotCommit() async throws {
        let metrics = ServerMetrics()
        let port = try await withTestServer(configure: {
            $0.healthAddress = Self.loopback0
            $0.metrics = metrics
        }) { server in
            let port = try #require(metrics.healthPort)
            var reply = try await HTTPProbe.get("/health", port: port)
            #expect(reply.status == 200)
            #expect(reply.body == "serving\n")
            // The health port serves nothing else.
            #expect(try await HTTPProbe.get("/metrics", port: port).status == 404)

            // A full disk: the commit fails, the op is rejected, the node says it cannot serve.
            let sqlite = try #require(server.store as? SQLiteStore)
            let pages = try await sqlite.pageCount()
            _ = try await sqlite.setMaxPageCount(pages)
            let probe = try await server.connect()
            let text = String(repeating: "disk full? ", count: 360)
            var mut = 0
            var code: String?
            while code == nil, mut < 50 {
                mut += 1
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(text)"}}"#)
                while let answer = try await probe.nextObject() {
                    if answer["type"] as? String == "ack" { break }
                    if answer["type"] as? String == "reject" {
                        code = answer["code"] as? String
                        break
                    }
                }
            }
            #expect(code == "storage_full")
            reply = try await HTTPProbe.get("/health", port: port)
            #expect(reply.status == 503)
            #expect(reply.body == "store failing\n")
            #expect(metrics.value(of: "corkd_commit_failures_total") == 1)

            // Space again: the next commit succeeds and the node is healthy at once.
            _ = try await sqlite.setMaxPageCount(1_000_000)
            try await probe.send(#"{"type":"op","board":"main","mut":\#(mut + 1),"op":{"kind":"chat","text":"back"}}"#)
            _ = try await probe.expect(type: "ack")
            #expect(try await HTTPProbe.get("/health", port: port).status == 200)
            await probe.close()
            return port
        }
        // Stopped: nothing answers any more.
        #expect(metrics.health.verdict == .stopping)
        await #expect(throws: (any Error).self) { _ = try await HTTPProbe.get("/health", port: port) }
    }

    @Test func healthVerdicts() async throws {
        let health = NodeHealth(failureHold: .milliseconds(50))
        #expect(health.verdict == .starting)
        health.listening()
        #expect(health.verdict == .serving)
        health.storeFailed()
        #expect(health.verdict == .storeFailing)
        // With no commit after it, the failure stops counting after the hold (the next commit tries again).
        try await Task.sleep(for: .milliseconds(120))
        #expect(health.verdict == .serving)
        health.storeFailed()
        health.storeCommitted()
        #expect(health.verdict == .serving)
        health.stopping()
        #expect(health.verdict == .stopping)
        health.listening()
        #expect(health.verdict == .stopping)
    }

    /// How `--metrics`/`--health` values parse: strings only, nothing binds these ports (the listener tests use
    /// port 0).
    @Test func adminAddresses() {
        #expect(AdminAddress("127.0.0.1:9420") == AdminAddress(host: "127.0.0.1", port: 9420))
        #expect(AdminAddress("[::1]:9420") == AdminAddress(host: "::1", port: 9420))
        #expect(AdminAddress("127.0.0.1") == nil)
        #expect(AdminAddress(":9420") == nil)
        #expect(AdminAddress("127.0.0.1:70000") == nil)
        #expect(AdminAddress("127.0.0.1:9420")?.isLoopback == true)
        #expect(AdminAddress("127.1.2.3:9420")?.isLoopback == true)
        #expect(AdminAddress("[::1]:9420")?.isLoopback == true)
        #expect(AdminAddress("localhost:9420")?.isLoopback == true)
        #expect(AdminAddress("0.0.0.0:9420")?.isLoopback == false)
        #expect(AdminAddress("10.0.0.5:9420")?.isLoopback == false)
        #expect(AdminAddress("[::]:9420")?.isLoopback == false)
        #expect(AdminAddress("[::1]:9420")?.description == "[::1]:9420")
    }

    /// Scrapes until `series` satisfies `condition` (at most 5 s); returns its last value.
    static func eventually(port: Int, _ series: String, _ condition: (Double) -> Bool) async throws -> Double? {
        var last: Double?
        for _ in 0..<100 {
            last = PrometheusText.value(of: series, in: try await HTTPProbe.get("/metrics", port: port).body)
            if let last, condition(last) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        return last
    }
}
