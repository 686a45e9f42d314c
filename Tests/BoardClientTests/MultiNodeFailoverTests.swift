import BoardClient
import BoardCore
import BoardStore
import BoardTesting
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real `corkd` processes on one PostgreSQL database, written by clients of the library given every node's address,
/// through `kill -9` of a node mid-burst and a PostgreSQL restart mid-run. Every acknowledged op is stored once,
/// at the seq its ack named; seqs have no gap; every surviving node and every client replica end on the same board.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(4)))
struct MultiNodeFailoverTests {
    @Test("kill -9 one of three nodes mid-burst: its clients move to another node and resume; every acked op stored once, seqs contiguous, all converge")
    func killNineOneOfThreeNodes() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            try await Self.withNodes(3, store: location) { nodes in
                let writers = 6
                let opsPerWriter = 45
                // The writers that start on the node to be killed hold two thirds in until it is: each then has ops
                // left to send through another node (on a busy machine one could finish before the kill, and the
                // failover would go untested).
                let logs = try await Self.writeWhile(
                    writers, ops: opsPerWriter, on: nodes, holdingUntilKilled: { $0 % nodes.count == 0 }
                ) { progress in
                    // Mid-burst: about a third of every op is acknowledged.
                    try await progress.wait(untilAcked: writers * opsPerWriter / 3, timeout: .seconds(60))
                    let exit = try await nodes[0].kill9()
                    #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL, "\(exit)")
                    await progress.markKilled()
                }
                try await Self.verify(logs, location: location, survivors: Array(nodes.dropFirst()))
                for log in logs where log.writer % nodes.count == 0 {
                    #expect(log.appliedAfterKill > 0, "writer \(log.writer) (first on the killed node) moved to another node and kept writing")
                }
            }
        }
    }

    @Test("a PostgreSQL restart mid-run: nodes stop acking and say why while it is down, then reconnect, catch up and lose nothing")
    func postgresRestartMidRun() async throws {
        try await withPostgresTestServer { database in
            try await Self.withNodes(2, store: database.location, health: true) { nodes in
                let writers = 4
                let opsPerWriter = 40
                let logs = try await Self.writeWhile(writers, ops: opsPerWriter, on: nodes) { progress in
                    try await progress.wait(untilAcked: writers * opsPerWriter / 4, timeout: .seconds(60))
                    // Logged in before the outage (a login reads the database too).
                    let probe = try await Self.loggedIn(nodes[1])
                    try await database.stop()
                    await progress.markKilled()
                    // While the database is down a node acknowledges nothing, and says why: the op is rejected with a
                    // retryable code naming the database, and its health port answers 503.
                    try await Self.expectRefusal(on: probe, healthPort: try #require(nodes[1].healthPort))
                    try await database.start()
                }
                try await Self.verify(logs, location: database.location, survivors: nodes)
                for node in nodes {
                    #expect(node.standardError.contains("LISTEN re-established"), "node \(node.port) listened again")
                }
            }
        }
    }

    // MARK: Nodes

    /// Starts `count` real nodes on `location` (the first makes the first start; the others serve with its
    /// certificate and know its owner token) without a rate limit; all are killed when `body` returns.
    static func withNodes<T>(
        _ count: Int, store location: PostgresLocation, health: Bool = false, _ body: ([CorkdProcess]) async throws -> T
    ) async throws -> T {
        var nodes: [CorkdProcess] = []
        defer { for node in nodes { node.cleanup() } }
        let environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": location.password ?? ""]) { $1 }
        for index in 0..<count {
            let node = try CorkdProcess()
            nodes.append(node)
            var options = ["--store", Self.url(location), "--rate", "100000", "--burst", "100000"]
            if health { options += ["--health", "127.0.0.1:\(try LoopbackPort.closed())"] }
            if index > 0 {
                try node.joinCluster(of: nodes[0])
                options += CorkdProcess.certificateOptions(of: nodes[0])
            }
            try await node.start(options: options, environment: environment)
        }
        return try await body(nodes)
    }

    /// The store URL without its password (it comes from `$PGPASSWORD`, as deploy/postgres/README.md advises).
    static func url(_ location: PostgresLocation) -> String {
        "postgres://\(location.user)@\(location.host):\(location.port)/\(location.database)"
    }

    /// The owner's client configuration with every node's address, starting at node `first`.
    static func configuration(_ nodes: [CorkdProcess], first: Int) throws -> ClientConfiguration {
        let endpoints = nodes.indices.map { nodes[($0 + first) % nodes.count] }.map {
            ClientConfiguration.Endpoint(host: "127.0.0.1", port: $0.port)
        }
        var configuration = ClientConfiguration(
            endpoints: endpoints, trust: .pinned(try nodes[0].pinned()), token: nodes[0].ownerToken, board: "main")
        configuration.reconnect = ReconnectPolicy(initial: .milliseconds(50), maximum: .milliseconds(500))
        configuration.paceOps = false
        return configuration
    }

    // MARK: Writers

    /// Counts acknowledged ops across writers, and whether the fault has happened.
    actor Progress {
        private(set) var acked = 0
        private(set) var killed = false
        func ackedOne() { acked += 1 }
        func markKilled() { killed = true }

        /// Waits (bounded) until the node is killed.
        func waitUntilKilled(timeout: Duration) async {
            let deadline = ContinuousClock.now + timeout
            while !killed, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        }

        /// Waits (bounded) until `count` ops are acknowledged.
        func wait(untilAcked count: Int, timeout: Duration) async throws {
            let deadline = ContinuousClock.now + timeout
            while acked < count {
                guard ContinuousClock.now < deadline else { throw TestFailure("only \(acked) of \(count) ops acked within \(timeout)") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// What one writer saw.
    struct WriterLog: Sendable {
        var writer: Int
        /// Every op's unique mark (card id, title or chat text) and the seq it was applied at.
        var applied: [(mark: String, seq: UInt64)] = []
        var rejected: [String] = []
        var failures: [String] = []
        var appliedAfterKill = 0
        /// The client's confirmed board once it reached the stored head.
        var board: Board?
    }

    /// One writer: `ops` ops, each waited for (its delta applied, or its reject), cycling through `card.add` (a
    /// new card), `card.edit` of that card's title and `chat`, each carrying a mark that no other op has.
    /// Runs `writers` writers of `ops` ops each (writer n starting on node n mod the count) while `meanwhile` does its
    /// damage; returns their logs once every writer is done, by writer.
    static func writeWhile(
        _ writers: Int, ops: Int, on nodes: [CorkdProcess], holdingUntilKilled holds: (Int) -> Bool = { _ in false },
        _ meanwhile: (Progress) async throws -> Void
    ) async throws -> [WriterLog] {
        let progress = Progress()
        return try await withThrowingTaskGroup(of: WriterLog.self) { group in
            for writer in 0..<writers {
                let configuration = try Self.configuration(nodes, first: writer % nodes.count)
                let hold = holds(writer) ? ops * 2 / 3 : nil
                group.addTask {
                    await Self.write(writer: writer, ops: ops, configuration: configuration, progress: progress, holdAfter: hold)
                }
            }
            try await meanwhile(progress)
            var all: [WriterLog] = []
            for try await log in group { all.append(log) }
            return all.sorted { $0.writer < $1.writer }
        }
    }

    /// `holdAfter`: after that many ops, waits (up to 60 s) for the kill before going on.
    static func write(
        writer: Int, ops: Int, configuration: ClientConfiguration, progress: Progress, holdAfter: Int? = nil
    ) async -> WriterLog {
        var log = WriterLog(writer: writer)
        do {
            try await withClient(configuration) { client in
                _ = try await client.ready(timeout: .seconds(30))
                var card = ""
                for n in 1...ops {
                    if let holdAfter, n == holdAfter + 1 { await progress.waitUntilKilled(timeout: .seconds(60)) }
                    let mark: String
                    let op: Op
                    switch (n % 3, card.isEmpty) {
                    case (1, _), (_, true):
                        mark = "f-w\(writer)-\(n)"
                        card = mark
                        op = .addCard(AddCard(card: CardID(mark), column: "todo", title: mark))
                    case (2, false):
                        mark = "w\(writer) edit \(n)"
                        op = .editCard(EditCard(card: CardID(card), title: mark))
                    default:
                        mark = "w\(writer) says \(n)"
                        op = .chat(text: mark)
                    }
                    switch try await client.perform(op, timeout: .seconds(60)) {
                    case .applied(let seq):
                        log.applied.append((mark, seq))
                        if await progress.killed { log.appliedAfterKill += 1 }
                        await progress.ackedOne()
                    case .noop(let seq):
                        log.failures.append("\(mark): a no-op at \(seq)")
                    case .rejected(let rejection):
                        log.rejected.append("\(mark): \(rejection)")
                    }
                }
            }
        } catch {
            log.failures.append("writer \(writer): \(error)")
        }
        return log
    }

    // MARK: Checks

    /// The store holds seqs 1…head with no gap; every applied op's mark is stored exactly once, at its seq; no mark
    /// is stored twice; every surviving node serves the stored board.
    static func verify(_ logs: [WriterLog], location: PostgresLocation, survivors: [CorkdProcess]) async throws {
        for log in logs {
            #expect(log.failures.isEmpty, "writer \(log.writer): \(log.failures.prefix(3))")
            #expect(!log.applied.isEmpty, "writer \(log.writer) had ops applied")
        }
        var logger = Logger(label: "corkd-test")
        logger.logLevel = .critical
        let store = try await PostgresStore.open(location, logger: logger)
        do {
            let head = try #require(try await store.boards().first { $0.id == "main" }).seq
            let events = try await store.events("main", from: 1, to: head, limit: Int(head) + 10)
            #expect(events.map(\.seq) == Array(1...head), "seqs 1…\(head) with no gap")
            var marks: [String: [UInt64]] = [:]
            for event in events {
                switch event.op {
                case .addCard(let add): marks[add.card.rawValue, default: []].append(event.seq)
                case .editCard(let edit): if let title = edit.title { marks[title, default: []].append(event.seq) }
                case .chat(let text): marks[text, default: []].append(event.seq)
                default: break
                }
            }
            let twice = marks.filter { $0.value.count > 1 }
            #expect(twice.isEmpty, "ops stored twice: \(twice.prefix(5))")
            var missing: [String] = []
            for log in logs {
                for (mark, seq) in log.applied where marks[mark] != [seq] {
                    missing.append("\(mark) applied at \(seq), stored at \(marks[mark] ?? [])")
                }
            }
            #expect(missing.isEmpty, "\(missing.count) acknowledged ops are not stored once at their seq: \(missing.prefix(10))")
            let stored = try await Self.storedBoard(store)
            for node in survivors {
                let board = try await Self.snapshot(node, atLeast: head)
                #expect(board.seq == head, "node \(node.port) is at the stored head \(head)")
                #expect(board.contentHash == stored.contentHash, "node \(node.port) serves the stored board")
            }
            let applied = logs.reduce(0) { $0 + $1.applied.count }
            let rejected = logs.flatMap(\.rejected)
            print("\(survivors.count) nodes left: head \(head), \(applied) ops applied, \(rejected.count) rejected \(rejected.prefix(5))")
            try await store.close()
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// `main` as stored: the newest snapshot with the tail applied by the pure reducer.
    static func storedBoard(_ store: PostgresStore) async throws -> Board {
        let loaded = try #require(try await store.load("main"))
        var board = loaded.snapshot
        for event in loaded.tail {
            let context = ApplyContext(actor: event.actor, role: .owner, now: event.at, seq: event.seq)
            if case .failure(let rejection) = board.apply(event.op, context: context) {
                throw TestFailure("stored event \(event.seq) does not replay: \(rejection)")
            }
        }
        return board
    }

    /// `node`'s board `main` from a fresh subscription, once its seq reaches `seq` (bounded).
    static func snapshot(_ node: CorkdProcess, atLeast seq: UInt64) async throws -> Board {
        var configuration = ClientConfiguration(
            endpoints: [.init(host: "127.0.0.1", port: node.port)], trust: .pinned(try node.pinned()),
            token: node.ownerToken, board: "main")
        configuration.announcesPresence = false
        return try await withClient(configuration) { client in
            _ = try await client.ready(timeout: .seconds(20))
            let deadline = ContinuousClock.now + .seconds(20)
            while await client.seq < seq, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            return try #require(await client.confirmedBoard)
        }
    }

    /// A raw connection to `node`, logged in as the owner.
    static func loggedIn(_ node: CorkdProcess) async throws -> WireProbe {
        let probe = try await WireProbe.connect(port: node.port, fingerprint: try node.pinned(), timeout: .seconds(30))
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(node.ownerToken)","client_id":"down-probe"}"#)
        _ = try await probe.expect(type: "welcome")
        return probe
    }

    /// With the database down: an op sent on `probe` is rejected (not acknowledged) within 30 s with a retryable
    /// code whose message names the database, and the node's health port answers 503.
    static func expectRefusal(on probe: WireProbe, healthPort: Int) async throws {
        try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"while the database is down"}}"#)
        let answer = try await probe.expect(type: "reject")
        let code = answer["code"] as? String ?? ""
        let message = answer["message"] as? String ?? ""
        #expect(code == "internal" || code == "storage_busy", "\(answer)")
        #expect(message.contains("database"), "the reject says why: \(message)")
        await probe.close()
        // However the node learnt that the database is gone (here: a read for the probe's op, and the lost LISTEN
        // connection), its health port says so.
        let health = try await HTTPProbe.get("/health", port: healthPort)
        #expect(health.status == 503, "health while the database is down: \(health.status) \(health.body)")
    }
}
