import BoardTesting
import BoardWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HAProxy (deploy/haproxy.cfg with free ports) in front of two real `corkd` nodes on one PostgreSQL
/// database, and the real `cork` pointed at HAProxy: cards added through it land on either
/// node and show on both; after `kill -9` of a node, `cork` keeps working through HAProxy and nothing is lost.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct HAProxyTests {
    /// HAProxy's binary (Debian: /usr/sbin/haproxy, from `apt-get install haproxy`; `.ci/run` installs it).
    static func haproxy() throws -> URL {
        for path in ["/usr/sbin/haproxy", "/usr/local/sbin/haproxy"] where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        return try SpawnedProcess.tool("haproxy")
    }

    /// Two real `corkd` nodes on one fresh PostgreSQL database behind a real HAProxy (deploy/haproxy.cfg with this
    /// run's ports), for `body`. `health`: the port HAProxy checks for every node (default: each node's own).
    ///
    /// HAProxy's ports are picked free and bound later, by HAProxy: on a busy machine another process's outgoing
    /// connection can take one meanwhile. Then HAProxy cannot listen, and the set-up starts again on other ports (at
    /// most three times), before `body` has run.
    static func withProxiedNodes(
        health: Int? = nil,
        _ body: (_ nodes: [CorkdProcess], _ proxy: SpawnedProcess, _ front: Int, _ webFront: Int) async throws -> Void
    ) async throws {
        for attempt in 1...3 {
            do {
                try await proxiedNodes(health: health, body)
                return
            } catch is PortTaken where attempt < 3 {
                continue
            }
        }
    }

    /// HAProxy could not bind a port picked for it.
    struct PortTaken: Error, CustomStringConvertible {
        var description: String { "HAProxy could not bind the ports picked for it (taken meanwhile), three times" }
    }

    private static func proxiedNodes(
        health: Int?,
        _ body: (_ nodes: [CorkdProcess], _ proxy: SpawnedProcess, _ front: Int, _ webFront: Int) async throws -> Void
    ) async throws {
        let haproxy = try Self.haproxy()
        try await PostgresTestDatabase.withDatabase { location in
            let store = "postgres://\(location.user)@\(location.host):\(location.port)/\(location.database)"
            let environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": location.password ?? ""]) { $1 }
            var nodes: [CorkdProcess] = []
            var proxy: SpawnedProcess?
            defer {
                proxy?.killAndReap()
                for node in nodes { node.cleanup() }
            }
            // Every node names HAProxy's port in invite URLs (--public-port): clients never see a node's own port.
            // The web pages go through HAProxy too, with one cookie key for both nodes.
            let front = try LoopbackPort.closed()
            let webFront = try LoopbackPort.closed()
            let cookieKey = FileManager.default.temporaryDirectory.appendingPathComponent("web-key-\(UUID().uuidString)")
            try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: cookieKey)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: cookieKey.path)
            defer { try? FileManager.default.removeItem(at: cookieKey) }
            for index in 0..<2 {
                let node = try CorkdProcess()
                nodes.append(node)
                var options = [
                    "--store", store, "--health", "127.0.0.1:\(try LoopbackPort.closed())", "--public-port", "\(front)",
                    "--web-key", cookieKey.path,
                ]
                if index > 0 {
                    try node.joinCluster(of: nodes[0])
                    options += CorkdProcess.certificateOptions(of: nodes[0])
                }
                try await node.start(options: options, environment: environment)
            }
            let template = try String(
                contentsOf: CorkdProcess.packageRoot.appendingPathComponent("deploy/haproxy.cfg"), encoding: .utf8)
            let backends = try nodes.map { (port: $0.port, health: try health ?? #require($0.healthPort), web: try #require($0.webPort)) }
            let file = nodes[0].root.appendingPathComponent("haproxy.cfg")
            try Self.configuration(template, front: front, webFront: webFront, nodes: backends)
                .write(to: file, atomically: true, encoding: .utf8)
            let check = try await SpawnedProcess.run(
                haproxy, ["-c", "-f", file.path], logDirectory: nodes[0].logDirectory, name: "haproxy-check")
            #expect(check.exit.isSuccess, "haproxy -c: \(check.standardOutput) \(check.standardError)")
            let started = try SpawnedProcess(
                executable: haproxy, arguments: ["-db", "-f", file.path], logDirectory: nodes[0].logDirectory, name: "haproxy")
            proxy = started
            do {
                try await Self.waitForListener(port: front, process: started)
            } catch where started.standardError.contains("Address already in use") {
                throw PortTaken()
            }
            try await body(nodes, started, front, webFront)
        }
    }

    @Test("cork through HAProxy in front of two nodes on one PostgreSQL: kill -9 a node and keep working, nothing lost")
    func corkThroughHAProxySurvivesANodeKill() async throws {
        try await Self.withProxiedNodes { nodes, started, front, webFront in
            // The owner's URL names HAProxy, not the node that wrote it.
            let url = nodes[0].ownerURL
            #expect(url.contains("127.0.0.1:\(front)/"), "\(url)")
            let cork = try CorkProcess(nodes[0], url: url)
            for n in 1...4 { try await cork.ok(["add", "card \(n) via haproxy"]) }
            let before = try await cork.ok(["show"])
            for n in 1...4 { #expect(before.contains("card \(n) via haproxy"), "\(before)") }

            // A page through HAProxy: its session cookie and its live board, whichever node serves it.
            let token = try #require(InviteURL(url)?.token)
            let page = try await WebPageProbe.live(port: webFront, token: token)
            try await page.send(#"{"t":"open","board":"main"}"#)
            let board = try await page.next(where: { $0["t"] as? String == "board" })
            #expect("\(board)".contains("card 4 via haproxy"))
            await page.close()

            let exit = try await nodes[0].kill9()
            #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL)
            for n in 5...8 { try await cork.ok(["add", "card \(n) via haproxy"]) }
            let after = try await cork.ok(["show"])
            for n in 1...8 { #expect(after.contains("card \(n) via haproxy"), "card \(n) after the kill: \(after)") }
            #expect(after.contains("seq 8"), "8 cards, 8 seqs: \(after.prefix(200))")

            // HAProxy saw the node go (its health check), and both nodes had served: leastconn spread the sessions.
            let deadline = ContinuousClock.now + .seconds(10)
            while !started.standardOutput.contains("node1 is DOWN"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(started.standardOutput.contains("node1 is DOWN"), "haproxy log: \(started.standardOutput.suffix(2000))")
            #expect(started.isRunning, "haproxy still runs: \(started.standardError.suffix(2000))")

            // The same cookie opens a page on the node left (once HAProxy has taken node 1 out of the web backend
            // too): it has every card.
            let webDeadline = ContinuousClock.now + .seconds(10)
            while !started.standardOutput.contains("web_nodes/node1 is DOWN"), ContinuousClock.now < webDeadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(started.standardOutput.contains("web_nodes/node1 is DOWN"), "haproxy log: \(started.standardOutput.suffix(2000))")
            let again = try await WebPageProbe.live(port: webFront, token: token)
            try await again.send(#"{"t":"open","board":"main"}"#)
            let survived = try await again.next(where: { $0["t"] as? String == "board" })
            #expect("\(survived)".contains("card 8 via haproxy"))
            await again.close()
        }
    }

    /// While every node fails its health check (the database restarting), a client connected through HAProxy keeps
    /// its connection, and a new one still reaches a node. The nodes' checks are answered here by a stand-in that
    /// says 503, as a node does while it cannot reach the database; the database itself stays up, so what is tested
    /// is HAProxy's configuration. With the sessions of a node marked down closed and no server left, every client had
    /// been dropped and a new one closed during the TLS handshake.
    @Test("every node down in HAProxy's checks: a client keeps its connection and a new one still reaches a node")
    func everyNodeDownKeepsSessionsAndTakesNewOnes() async throws {
        let python = try SpawnedProcess.tool("python3")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("health-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let status = root.appendingPathComponent("status")
        try "200".write(to: status, atomically: true, encoding: .utf8)
        let script = """
            import http.server, sys
            class Health(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(int(open(sys.argv[2]).read().strip()))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *args):
                    pass
            http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health).serve_forever()
            """
        let healthPort = try LoopbackPort.closed()
        let health = try SpawnedProcess(
            executable: python, arguments: ["-c", script, "\(healthPort)", status.path], logDirectory: root, name: "health")
        defer { health.killAndReap() }
        try await Self.waitForListener(port: healthPort, process: health)
        try await Self.withProxiedNodes(health: healthPort) { nodes, proxy, front, _ in
            let fingerprint = try #require(nodes[0].fingerprint)
            let watcher = try await WireProbe.connect(port: front, fingerprint: fingerprint)
            try await watcher.send(#"{"type":"hello","req":1,"version":1,"client":"test","token":"\#(nodes[0].ownerToken)","client_id":"c-watch"}"#)
            _ = try await watcher.expect(type: "welcome")
            try await watcher.send(#"{"type":"subscribe","req":2,"board":"main"}"#)
            _ = try await watcher.expect(type: "snapshot")
            _ = try await watcher.expect(type: "subscribed")

            try "503".write(to: status, atomically: true, encoding: .utf8)
            let deadline = ContinuousClock.now + .seconds(20)
            let down = { ["corkd_nodes/node1 is DOWN", "corkd_nodes/node2 is DOWN"].allSatisfy(proxy.standardOutput.contains) }
            while !down(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(down(), "haproxy log: \(proxy.standardOutput.suffix(2000))")

            let cork = try CorkProcess(nodes[0], url: nodes[0].ownerURL)
            try await cork.ok(["add", "added while every node is down"])
            let delta = try await watcher.expect(type: "delta")
            #expect("\(delta)".contains("added while every node is down"), "\(delta)")
            await watcher.close()
        }
    }

    /// deploy/haproxy.cfg with this run's addresses: the TLS frontend on 127.0.0.1:`front` and the web frontend on
    /// 127.0.0.1:`webFront` (plain HTTP: the test has no certificate a client would check), one `server` line per
    /// node in each backend (its TLS or web port, its health port), a faster check interval, and `maxconn` within a
    /// test shell's descriptor limit (HAProxy needs two descriptors per connection).
    /// The template's unchecked `backup` lines (the spares used while every node is down) get one per node too.
    static func configuration(
        _ template: String, front: Int, webFront: Int, nodes: [(port: Int, health: Int, web: Int)]
    ) throws -> String {
        var lines: [String] = []
        var section = ""
        var serversDone: Set<String> = []
        for line in template.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !line.hasPrefix(" "), !trimmed.isEmpty, !trimmed.hasPrefix("#") { section = trimmed }
            let web = section.contains("web")
            if trimmed.hasPrefix("server ") {
                let backup = trimmed.hasSuffix(" backup")
                let kind = section + (backup ? " backup" : "")
                if !serversDone.contains(kind) {
                    serversDone.insert(kind)
                    for (index, node) in nodes.enumerated() {
                        let address = "127.0.0.1:\(web ? node.web : node.port)"
                        lines.append(backup
                            ? "    server node\(index + 1)-spare \(address) backup"
                            : "    server node\(index + 1) \(address) check port \(node.health)")
                    }
                }
                continue
            }
            var edited = line
            if trimmed.hasPrefix("bind ") { edited = "    bind 127.0.0.1:\(web ? webFront : front)" }
            if trimmed.hasPrefix("maxconn ") { edited = "    maxconn 2000" }
            edited = edited.replacingOccurrences(of: "inter 2s", with: "inter 250ms")
                .replacingOccurrences(of: "maxconn 20000", with: "maxconn 1000")
            lines.append(edited)
        }
        guard serversDone.filter({ !$0.hasSuffix(" backup") }).count == 2, lines.contains("    bind 127.0.0.1:\(front)"), lines.contains("    bind 127.0.0.1:\(webFront)")
        else {
            throw TestFailure("deploy/haproxy.cfg has no bind or server lines to replace in both frontends and backends")
        }
        return lines.joined(separator: "\n")
    }

    /// Waits (at most 10 s) until something accepts TCP connections on 127.0.0.1:`port`.
    static func waitForListener(port: Int, process: SpawnedProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw TestFailure("haproxy exited: \(process.standardError.suffix(2000))") }
            if LoopbackPort.accepts(port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("haproxy did not listen on \(port) within 10 s: \(process.standardError.suffix(2000))")
    }
}
