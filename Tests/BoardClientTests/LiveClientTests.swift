import BoardClient
import BoardCore
import BoardTesting
import BoardTransport
import BoardWire
import Foundation
import Testing

/// The client library against a live in-process corkd over real TLS on 127.0.0.1 port 0.
@Suite struct LiveClientTests {
    static func configuration(_ server: TestServer, token: String? = nil, board: BoardID? = "main") -> ClientConfiguration {
        var configuration = ClientConfiguration(
            endpoints: [.init(host: "127.0.0.1", port: server.port)], trust: .pinned(server.fingerprint),
            token: token ?? server.ownerToken, board: board)
        configuration.reconnect = ReconnectPolicy(initial: .milliseconds(50), maximum: .milliseconds(500))
        return configuration
    }

    /// Waits until the client's board is loaded, allowing for a fresh invite's membership to be applied. Generous:
    /// with the whole suite on two cores, one of ten fresh invites once took longer than 10 + 20 s to be served.
    static func ready(_ client: BoardClient) async throws -> Board {
        try await client.ready(timeout: .seconds(30), membershipGrace: .seconds(60))
    }

    @Test func anOpIsShownAtOnceCommittedAndSeenByAnotherClientWithADiff() async throws {
        try await withTestServer { server in
            let bobToken = try await server.invite("bob")
            try await withClient(Self.configuration(server)) { alice in
                try await withClient(Self.configuration(server, token: bobToken)) { bob in
                    _ = try await alice.ready()
                    _ = try await Self.ready(bob)
                    var bobEvents = bob.events.makeAsyncIterator()
                    let outcome = try await alice.perform(
                        .addCard(AddCard(card: "k1", column: "todo", title: "Fix login", labels: [])))
                    guard case .applied(let seq) = outcome else {
                        Issue.record("expected applied, got \(outcome)")
                        return
                    }
                    #expect(await alice.board?.cards["k1"]?.title == "Fix login")
                    #expect(await alice.seq == seq)
                    // Bob's stream: a board update that names the card and TODO as changed and shows the card there,
                    // and the activity.
                    var sawInsert = false
                    var sawActivity = false
                    let deadline = ContinuousClock.now + .seconds(30)
                    while !(sawInsert && sawActivity), ContinuousClock.now < deadline {
                        guard let event = await bobEvents.next() else { break }
                        switch event {
                        case .board(let update):
                            if update.changes.contains(card: "k1"), update.changes.contains(column: "todo"),
                                update.board.cards["k1"]?.column == "todo"
                            {
                                sawInsert = true
                                #expect(update.changedByOthers.contains("k1"))
                            }
                        case .activity(let activity):
                            if activity.activity.kind == "card.add" {
                                sawActivity = true
                                #expect(!activity.isOwn)
                                #expect(activity.activity.actor == "owner")
                            }
                        default: break
                        }
                    }
                    #expect(sawInsert)
                    #expect(sawActivity)
                }
            }
        }
    }

    @Test func aDownAddressIsSkippedForTheNextOne() async throws {
        try await withTestServer { server in
            var configuration = Self.configuration(server)
            configuration.endpoints.insert(.init(host: "127.0.0.1", port: 1), at: 0)
            try await withClient(configuration) { client in
                let board = try await client.ready()
                #expect(board.id == "main")
                guard case .connected(let endpoint, _) = await client.state else {
                    Issue.record("not connected: \(await client.state)")
                    return
                }
                #expect(endpoint == "127.0.0.1:\(server.port)")
            }
        }
    }

    @Test func aCertificateThatDoesNotMatchThePinStopsTheClientWithoutRetrying() async throws {
        try await withTestServer { server in
            var configuration = Self.configuration(server)
            configuration.trust = .pinned(Fingerprint(derBytes: [1, 2, 3]))
            try await withClient(configuration) { client in
                do {
                    _ = try await client.ready(timeout: .seconds(10))
                    Issue.record("connected despite a wrong pin")
                } catch let error as ClientError {
                    #expect(error.code == .tls)
                    #expect(error.isFatal)
                }
            }
        }
    }

    @Test func aRejectedOpRollsBackAndReportsTheCode() async throws {
        try await withTestServer { server in
            try await withClient(Self.configuration(server)) { client in
                _ = try await client.ready()
                let outcome = try await client.perform(.closeCard(card: "no-such-card"))
                guard case .rejected(let reject) = outcome else {
                    Issue.record("expected a reject, got \(outcome)")
                    return
                }
                #expect(reject.code == .rejected(.notFound))
                #expect(await client.pendingOps.isEmpty)
            }
        }
    }

    @Test func aConflictRejectCarriesTheServersCurrentDescription() async throws {
        try await withTestServer { server in
            try await withClient(Self.configuration(server)) { client in
                _ = try await client.ready()
                _ = try await client.perform(.addCard(AddCard(card: "d1", title: "Doc", description: "v1")))
                let base = try #require(await client.board?.cards["d1"]?.descriptionSeq)
                _ = try await client.perform(.editCard(EditCard(card: "d1", description: "v2", baseSeq: base)))
                let outcome = try await client.perform(.editCard(EditCard(card: "d1", description: "v3", baseSeq: base)))
                guard case .rejected(let reject) = outcome else {
                    Issue.record("expected conflict, got \(outcome)")
                    return
                }
                #expect(reject.code == .rejected(.conflict))
                guard case .object(let current)? = reject.current else {
                    Issue.record("conflict without current: \(reject)")
                    return
                }
                #expect(current["description"] == .string("v2"))
                #expect(await client.board?.cards["d1"]?.description == "v2")
            }
        }
    }

    @Test func tenClientsDoingRandomConcurrentOpsConvergeOnTheServersBoard() async throws {
        try await withTestServer { server in
            var tokens: [String] = [server.ownerToken]
            for n in 1..<10 { tokens.append(try await server.invite(UserID("user\(n)"))) }
            let tokenList = tokens
            let hashes = try await withThrowingTaskGroup(of: (UInt64, String).self) { group in
                for (n, token) in tokenList.enumerated() {
                    group.addTask {
                        try await withClient(Self.configuration(server, token: token)) { client in
                            _ = try await Self.ready(client)
                            var random = SplitMix(seed: UInt64(n + 1))
                            var mine: [CardID] = []
                            var muts: [UInt64] = []
                            for step in 0..<30 {
                                let board = try #require(await client.board)
                                let op = RandomOps.next(board: board, client: n, step: step, mine: &mine, random: &random)
                                muts.append(try await client.submit(op))
                            }
                            for mut in muts {
                                do { _ = try await client.outcome(of: mut, timeout: .seconds(20)) } catch {
                                    FileHandle.standardError.write("client \(n): \(await client.diagnostics())\n".data(using: .utf8)!)
                                    throw error
                                }
                            }
                            return try await Self.settle(client, server: server)
                        }
                    }
                }
                var all: [(UInt64, String)] = []
                for try await result in group { all.append(result) }
                return all
            }
            // The server's board, fresh from a snapshot.
            let reference = try await withClient(Self.configuration(server)) { client in
                let board = try await client.ready()
                return (await client.seq, board.contentHash)
            }
            #expect(hashes.count == 10)
            for (seq, hash) in hashes {
                #expect(seq == reference.0)
                #expect(hash == reference.1)
            }
        }
    }

    /// Waits until the client has caught up with the server's current seq and returns its (seq, hash).
    static func settle(_ client: BoardClient, server: TestServer) async throws -> (UInt64, String) {
        let deadline = ContinuousClock.now + .seconds(60)
        // Other clients keep writing for a while; wait until the board's seq stops moving and nothing is pending.
        var last: UInt64 = 0
        var stable = 0
        while ContinuousClock.now < deadline {
            let seq = await client.seq
            let pending = await client.pendingOps.count
            let boards = try await client.boards()
            let serverSeq = boards.first { $0.board == "main" }?.seq ?? 0
            if seq == serverSeq, pending == 0, seq == last { stable += 1 } else { stable = 0 }
            if stable >= 3 { break }
            last = seq
            try await Task.sleep(for: .milliseconds(100))
        }
        let board = try #require(await client.confirmedBoard)
        return (await client.seq, board.contentHash)
    }
}

/// Random ops of the kinds people make at once: adds, moves, edits, closes, archives, comments, chat.
enum RandomOps {
    static func next(board: Board, client: Int, step: Int, mine: inout [CardID], random: inout SplitMix) -> Op {
        let cards = board.cards.values.filter { !$0.archived }.map(\.id).sorted()
        let columns = board.columns.map(\.id)
        let roll = random.next() % 100
        if cards.count < 3 || roll < 20 {
            let id = CardID("r\(client)-\(step)")
            mine.append(id)
            let column = random.pick(columns) ?? "todo"
            return .addCard(AddCard(card: id, column: column, placement: Placement(index: Int(random.next() % 3)), title: "Card \(client).\(step)"))
        }
        let card = random.pick(cards)!
        switch roll {
        case 20..<55:
            let target = random.pick(columns)!
            let neighbours = board.cards(in: target).map(\.id).filter { $0 != card }
            if let after = random.pick(neighbours), random.next() % 2 == 0 {
                return .moveCard(card: card, column: target, placement: Placement(after: after))
            }
            return .moveCard(card: card, column: target, placement: Placement(index: Int(random.next() % 4)))
        case 55..<75: return .editCard(EditCard(card: card, title: "Edited by \(client) at \(step)"))
        case 75..<82: return .closeCard(card: card)
        case 82..<88: return .archiveCard(card: card)
        case 88..<94: return .addComment(card: card, comment: CommentID("m\(client)-\(step)"), text: "note \(step)")
        default: return .chat(text: "client \(client) step \(step)")
        }
    }
}

/// Reconnecting over real TLS: the network drops mid-session and the client comes back on its own.
@Suite struct ReconnectTests {
    @Test func cutConnectionsMidStreamLoseAndDoubleNothing() async throws {
        try await withTestServer { server in
            let proxy = try await TCPProxy.start(to: server.port)
            var configuration = LiveClientTests.configuration(server)
            configuration.endpoints = [.init(host: "127.0.0.1", port: proxy.port)]
            let bobToken = try await server.invite("bob")
            do {
                try await withClient(configuration) { alice in
                    try await withClient(LiveClientTests.configuration(server, token: bobToken)) { bob in
                        _ = try await alice.ready()
                        _ = try await LiveClientTests.ready(bob)
                        var muts: [UInt64] = []
                        for n in 0..<60 {
                            muts.append(try await alice.submit(.chat(text: "line \(n)")))
                            if n % 5 == 4 { _ = try await bob.submit(.chat(text: "bob \(n)")) }
                            if n % 20 == 10 { proxy.cutAll() }
                            try await Task.sleep(for: .milliseconds(10))
                        }
                        for mut in muts {
                            let outcome: OpOutcome
                            do {
                                // Two minutes: a connection that went quiet after a cut is found dead by the
                                // heartbeat only after 2 × 30 s, and then the op is sent again.
                                outcome = try await alice.outcome(of: mut, timeout: .seconds(120))
                            } catch {
                                Issue.record("op \(mut): \(error); alice: \(await alice.diagnostics())")
                                throw error
                            }
                            guard case .applied = outcome else {
                                Issue.record("op \(mut) was not applied: \(outcome)")
                                return
                            }
                        }
                        // Alice's replica caught up with everything, Bob's included, without a gap or a double.
                        let (seq, hash) = try await LiveClientTests.settle(alice, server: server)
                        let (bobSeq, bobHash) = try await LiveClientTests.settle(bob, server: server)
                        #expect(seq == bobSeq)
                        #expect(hash == bobHash)
                        var lines: [String] = []
                        var before: UInt64?
                        repeat {
                            let page = try await bob.history(before: before, limit: 500)
                            lines = page.activities.compactMap(\.text) + lines
                            before = page.activities.first?.seq
                            if !page.more { break }
                        } while true
                        // Exactly once each. (Order holds unless the server rate-limits an op: the client sends it
                        // again under a new mut, after ops it sent later.)
                        let alicesLines = lines.filter { $0.hasPrefix("line ") }
                        #expect(alicesLines.sorted() == (0..<60).map { "line \($0)" }.sorted())
                        #expect(lines.count == 60 + 12)
                    }
                }
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }
}
