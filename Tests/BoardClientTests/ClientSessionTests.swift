import BoardClient
import BoardCore
import BoardWire
import NIOCore
import Testing

/// The client's session logic against a scripted server: resume, resend with the original mutation ids, gap fetch.
@Suite struct ClientSessionTests {
    static let t0 = ReplicaTests.t0

    static func delta(_ op: Op, seq: UInt64, on board: Board, actor: UserID, client: ClientID?, mut: UInt64?)
        -> (ServerMessage.Delta, Board)
    {
        let change = try! board.applying(op, context: ApplyContext(actor: actor, role: .owner, now: t0, seq: seq)).get()
        var next = change.board
        next.seq = seq
        return (
            ServerMessage.Delta(
                board: "main", seq: seq, at: t0, actor: actor, clientID: client, mut: mut, op: op,
                activity: change.activity), next
        )
    }

    @Test func afterADropTheClientResumesFromItsSeqAndResendsUnansweredOpsWithTheirMuts() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        try await withClient(server.configuration()) { client in
            // Connection 1: hello without a client id, a snapshot at seq 1.
            let first = FakeConnection(channel: try #require(await accepted.next()))
            guard case .hello(let hello) = try await first.read() else { throw FakeUnexpected(description: "no hello") }
            #expect(hello.clientID == nil)
            #expect(hello.token == "t0ken")
            try await first.welcome(clientID: "cid-1")
            guard case .subscribe(let subscribe) = try await first.read() else { throw FakeUnexpected(description: "no subscribe") }
            #expect(subscribe.since == nil)
            var board = ReplicaTests.board()
            try await first.send(.snapshot(ServerMessage.Snapshot(req: subscribe.req, board: "main", seq: 1, epoch: "e1", reason: .initial, state: board)))
            try await first.send(.subscribed(ServerMessage.Subscribed(req: subscribe.req, board: "main", seq: 1, epoch: "e1")))
            _ = try await client.ready(timeout: .seconds(30))

            // Two ops; the server commits the first and drops the connection before answering the second.
            let closeOp = Op.closeCard(card: "c1")
            let renameOp = Op.editCard(EditCard(card: "c1", title: "Renamed"))
            let m1 = try await client.submit(closeOp)
            let m2 = try await client.submit(renameOp)
            #expect(await client.board?.cards["c1"]?.title == "Renamed")
            guard case .op(let op1) = try await first.expect("op 1", { if case .op = $0 { true } else { false } }),
                case .op(let op2) = try await first.expect("op 2", { if case .op = $0 { true } else { false } })
            else { throw FakeUnexpected(description: "no ops") }
            #expect([op1.mut, op2.mut] == [m1, m2])
            try await first.send(.ack(ServerMessage.Ack(board: "main", mut: m1, seq: 2)))
            let (d2, afterD2) = Self.delta(closeOp, seq: 2, on: board, actor: "bob", client: "cid-1", mut: m1)
            board = afterD2
            try await first.send(.delta(d2))
            #expect(try await client.outcome(of: m1, timeout: .seconds(30)) == .applied(seq: 2))
            try await first.close()

            // Connection 2: hello with the client id, resume since 2, op 2 resent with its original mut.
            let second = FakeConnection(channel: try #require(await accepted.next()))
            guard case .hello(let again) = try await second.read() else { throw FakeUnexpected(description: "no hello") }
            #expect(again.clientID == "cid-1")
            try await second.welcome(clientID: "cid-1")
            guard case .subscribe(let resume) = try await second.read() else { throw FakeUnexpected(description: "no subscribe") }
            #expect(resume.since == 2)
            #expect(resume.epoch == "e1")
            guard case .op(let resent) = try await second.expect("resent op", { if case .op = $0 { true } else { false } })
            else { throw FakeUnexpected(description: "no resend") }
            #expect(resent.mut == m2)
            #expect(resent.op == .op(renameOp))
            try await second.send(.subscribed(ServerMessage.Subscribed(req: resume.req, board: "main", seq: 2, epoch: "e1")))
            try await second.send(.ack(ServerMessage.Ack(board: "main", mut: m2, seq: 3)))
            let (d3, afterD3) = Self.delta(renameOp, seq: 3, on: board, actor: "bob", client: "cid-1", mut: m2)
            board = afterD3
            try await second.send(.delta(d3))
            #expect(try await client.outcome(of: m2, timeout: .seconds(30)) == .applied(seq: 3))
            #expect(await client.pendingOps.isEmpty)

            // A gap: seq 5 arrives before 4. The client fetches 4 … 4, then applies both in order.
            let (d4, afterD4) = Self.delta(.reopenCard(card: "c1"), seq: 4, on: board, actor: "alice", client: "cid-9", mut: 7)
            let (d5, _) = Self.delta(.editCard(EditCard(card: "c1", title: "Five")), seq: 5, on: afterD4, actor: "alice", client: "cid-9", mut: 8)
            try await second.send(.delta(d5))
            guard case .fetch(let fetch) = try await second.expect("fetch", { if case .fetch = $0 { true } else { false } })
            else { throw FakeUnexpected(description: "no fetch") }
            #expect(fetch.from == 4)
            #expect(fetch.to == 4)
            #expect(await client.seq == 3)
            try await second.send(.delta(d4))
            try await second.send(.ok(ServerMessage.Ok(req: fetch.req, board: "main")))
            let deadline = ContinuousClock.now + .seconds(30)
            while await client.seq < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(await client.seq == 5)
            #expect(await client.board?.cards["c1"]?.title == "Five")
            #expect(await client.board?.cards["c1"]?.closed == false)
        }
    }

    /// A connection that just ends (the server killed with -9) says why in the reconnecting state, never "".
    @Test func aDroppedConnectionSaysWhyWhileReconnecting() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        try await withClient(server.configuration(board: nil)) { client in
            let first = FakeConnection(channel: try #require(await accepted.next()))
            _ = try await first.read()
            try await first.welcome(clientID: "cid-1")
            var events = client.events.makeAsyncIterator()
            while let event = await events.next() {
                if case .connection(.connected) = event { break }
            }
            try await first.close()
            var reason: String?
            while let event = await events.next() {
                if case .connection(.reconnecting(_, let lastError)) = event {
                    reason = lastError
                    break
                }
            }
            #expect(reason?.isEmpty == false, "reconnecting with reason \(String(describing: reason))")
            #expect(reason?.contains("closed the connection") == true, "\(String(describing: reason))")
        }
    }

    /// After the backoff has grown, reconnectNow() dials at once instead of waiting it out.
    @Test func reconnectNowDialsAtOnceInsteadOfWaitingOutTheBackoff() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        var configuration = server.configuration(board: nil)
        configuration.reconnect = ReconnectPolicy(initial: .seconds(600), maximum: .seconds(600), jitter: 0)
        try await withClient(configuration) { client in
            let first = FakeConnection(channel: try #require(await accepted.next()))
            _ = try await first.read()
            try await first.welcome(clientID: "cid-1")
            var events = client.events.makeAsyncIterator()
            while let event = await events.next() {
                if case .connection(.connected) = event { break }
            }
            try await first.close()
            while let event = await events.next() {
                if case .connection(.reconnecting) = event { break }
            }
            await client.reconnectNow()
            // Bounded: without the early retry the next dial is ten minutes away.
            let connections = server.connections
            let dialled = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    var next = connections.makeAsyncIterator()  // the only reader from here on
                    return await next.next() != nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(5))
                    return false
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
            #expect(dialled, "no new connection within 5 s of reconnectNow()")
        }
    }

    /// A wait that ran its course leaves the next one intact: after 100 ms the client dials again, and then waits
    /// its long backoff instead of dialling in a loop.
    @Test func aWaitThatRanItsCourseLeavesTheNextBackoffIntact() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        var configuration = server.configuration(board: nil)
        configuration.reconnect = ReconnectPolicy(
            initial: .milliseconds(100), maximum: .seconds(600), multiplier: 10_000, jitter: 0)
        try await withClient(configuration) { _ in
            try await FakeConnection(channel: try #require(await accepted.next())).close()
            // The first wait (100 ms) runs its course; the second dial follows.
            try await FakeConnection(channel: try #require(await accepted.next())).close()
            // The next wait is 600 s: no third dial within 2 s.
            let connections = server.connections
            let dialledAgain = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    var next = connections.makeAsyncIterator()  // the only reader from here on
                    return await next.next() != nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    return false
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
            #expect(!dialledAgain, "the client dialled again at once instead of waiting its backoff")
        }
    }

    @Test func aDeltaThatDoesNotApplyMakesTheClientStartOverFromASnapshotKeepingItsPendingOps() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        try await withClient(server.configuration()) { client in
            let connection = FakeConnection(channel: try #require(await accepted.next()))
            _ = try await connection.read()
            try await connection.welcome(clientID: "cid-3")
            guard case .subscribe(let first) = try await connection.read() else { throw FakeUnexpected(description: "no subscribe") }
            let board = ReplicaTests.board()
            try await connection.send(.snapshot(ServerMessage.Snapshot(req: first.req, board: "main", seq: 1, epoch: "e1", reason: .initial, state: board)))
            try await connection.send(.subscribed(ServerMessage.Subscribed(req: first.req, board: "main", seq: 1, epoch: "e1")))
            _ = try await client.ready(timeout: .seconds(30))
            let mut = try await client.submit(.editCard(EditCard(card: "c1", title: "Mine")))
            _ = try await connection.expect("op", { if case .op = $0 { true } else { false } })
            // A delta about a card the replica does not have: it has diverged.
            let bogus = ServerMessage.Delta(
                board: "main", seq: 2, at: Self.t0, actor: "alice", op: .closeCard(card: "ghost"),
                activity: Activity(seq: 2, at: Self.t0, actor: "alice", kind: "card.close", changes: [:]))
            try await connection.send(.delta(bogus))
            guard case .subscribe(let again) = try await connection.expect("a fresh subscribe", { if case .subscribe = $0 { true } else { false } })
            else { throw FakeUnexpected(description: "no resubscribe") }
            #expect(again.since == nil)
            var fixed = board
            _ = fixed.apply(.closeCard(card: "c1"), context: ApplyContext(actor: "alice", role: .owner, now: Self.t0, seq: 2))
            try await connection.send(.snapshot(ServerMessage.Snapshot(req: again.req, board: "main", seq: 2, epoch: "e1", reason: .initial, state: fixed)))
            try await connection.send(.subscribed(ServerMessage.Subscribed(req: again.req, board: "main", seq: 2, epoch: "e1")))
            let deadline = ContinuousClock.now + .seconds(30)
            while await client.seq < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(await client.board?.cards["c1"]?.closed == true)
            #expect(await client.board?.cards["c1"]?.title == "Mine")
            #expect(await client.pendingOps.map(\.mut) == [mut])
        }
    }

    @Test func aFatalServerErrorStopsTheClientWithItsCode() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        try await withClient(server.configuration()) { client in
            let connection = FakeConnection(channel: try #require(await accepted.next()))
            _ = try await connection.read()
            try await connection.send(.error(WireError(.authFailed, "unknown token")))
            // The client closes its side at once on a fatal error (ClientSession's `close` action); the server's
            // own close may find the channel closed already.
            try? await connection.close()
            do {
                _ = try await client.ready(timeout: .seconds(30))
                Issue.record("ready succeeded after auth_failed")
            } catch {
                #expect((error as? ClientError)?.server?.code == .authFailed)
            }
            guard case .stopped(let error?) = await client.state else {
                Issue.record("not stopped: \(await client.state)")
                return
            }
            #expect(error.isFatal)
        }
    }

    @Test func opsQueuedWhileTheServerIsDownAreSentOnceItIsUp() async throws {
        let server = FakeServer()
        var accepted = server.connections.makeAsyncIterator()
        try await withClient(server.configuration()) { client in
            // The first connection drops before welcome; an op queued meanwhile must wait, then go out once.
            let first = FakeConnection(channel: try #require(await accepted.next()))
            _ = try await first.read()
            try await first.close()
            let second = FakeConnection(channel: try #require(await accepted.next()))
            _ = try await second.read()
            // Not welcomed yet: the op is queued, not sent.
            _ = try? await client.perform(.chat(text: "offline"), timeout: .milliseconds(1))
            try await second.welcome(clientID: "cid-2")
            guard case .subscribe(let subscribe) = try await second.read() else { throw FakeUnexpected(description: "no subscribe") }
            guard case .op(let op) = try await second.expect("queued op", { if case .op = $0 { true } else { false } })
            else { throw FakeUnexpected(description: "no op") }
            #expect(op.op == .op(.chat(text: "offline")))
            #expect(subscribe.board == "main")
        }
    }
}
