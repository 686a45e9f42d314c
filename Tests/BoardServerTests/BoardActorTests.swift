import BoardTesting
import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// The board actor against a store whose commits the test holds open (tier 3: no sockets).
@Suite(.timeLimit(.minutes(1))) struct BoardActorTests {
    /// A board on a gated SQLite store in a fresh directory, run for `body`, then drained and stopped.
    static func withBoard(
        readGates: ReadGates? = nil, appendFailures: Int = 0, commitsOpen: Bool = true,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (BoardActor, Gate) async throws -> Void
    ) async throws -> SQLiteStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("actor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        _ = try await sqlite.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        let gate = Gate()
        if commitsOpen { await gate.open() }
        var store = GatedStore(inner: sqlite, gate: gate)
        store.readGates = readGates
        store.appendFailures = FailureBudget(appendFailures)
        var configuration = ServerConfiguration()
        configure(&configuration)
        let board = try await BoardActor.load(
            "main", store: store, configuration: configuration, clock: WallClock(), logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await board.run() }
            try await body(board, gate)
            await gate.open()
            await board.drained()
            board.stop()
            try await tasks.waitForAll()
        }
        return sqlite
    }

    /// A connection of client `c1` of the owner, and the answers it was sent (`ack 1 seq 1`, `reject 1 stale_mut`).
    struct Connection {
        let channel = NIOAsyncTestingChannel()
        let session: SessionRef

        init(_ name: String) {
            session = SessionRef(id: SessionID(name), user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
        }

        func answers() async throws -> [String] {
            await channel.testingEventLoop.run()
            var bytes: [UInt8] = []
            while let buffer = try await channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
            return try bytes.split(separator: UInt8(ascii: "\n")).map { line in
                switch try LineCoder().decodeServer(Array(line)) {
                case .ack(let ack): "ack \(ack.mut) seq \(ack.seq)"
                case .reject(let reject): "reject \(reject.mut) \(reject.code)"
                case let other: "\(other)"
                }
            }
        }
    }

    static let chat = OpRequest.op(.chat(text: "once"))

    /// Two copies of `mut`, from `first` then `second`, each held at its own read gate of the store; the first is
    /// let through and answered, then `between` runs, then the second is let through and answered.
    static func twoCopies(
        of mut: UInt64, on board: BoardActor, from first: Connection, _ second: Connection, gates: (Gate, Gate),
        between: () async -> Void = {}
    ) async {
        async let one: BoardActor.SubmitOutcome = board.submit(chat, mut: mut, from: first.session)
        await gates.0.entered()
        async let two: BoardActor.SubmitOutcome = board.submit(chat, mut: mut, from: second.session)
        await gates.1.entered()
        await gates.0.open()
        #expect(await one == .answered)
        await between()
        await gates.1.open()
        #expect(await two == .answered)
    }

    @Test func aResendWhileTheOriginalIsBeingWrittenIsAppliedOnceAndEachLineIsAcked() async throws {
        let (first, second) = (Connection("s1"), Connection("s2"))
        let sqlite = try await Self.withBoard(commitsOpen: false) { board, gate in
            // The original is applied and handed to the store, which holds the commit open.
            await board.submit(Self.chat, mut: 1, from: first.session)
            await gate.entered()
            // The same connection sends the line again (a client that did not wait), then the client reconnects and
            // resends it, all while the commit is in flight.
            await board.submit(Self.chat, mut: 1, from: first.session)
            await board.submit(Self.chat, mut: 1, from: second.session)
        }
        let stored = try await sqlite.events("main", from: 1, to: 10, limit: 10)
        #expect(stored.count == 1, "applied once: \(stored.map(\.seq))")
        #expect(try await first.answers() == ["ack 1 seq 1", "ack 1 seq 1"], "one answer per op line")
        #expect(try await second.answers() == ["ack 1 seq 1"])
        try await sqlite.close()
    }

    @Test func everyCopyOfAChangeTheStoreRefusedGetsTheReject() async throws {
        let (first, second) = (Connection("s1"), Connection("s2"))
        let sqlite = try await Self.withBoard(appendFailures: 1, commitsOpen: false) { board, gate in
            await board.submit(Self.chat, mut: 1, from: first.session)
            await gate.entered()
            await board.submit(Self.chat, mut: 1, from: first.session)
            await board.submit(Self.chat, mut: 1, from: second.session)
        }
        #expect(try await sqlite.events("main", from: 1, to: 10, limit: 10).isEmpty)
        #expect(try await first.answers() == ["reject 1 storage_full", "reject 1 storage_full"], "one answer per op line")
        #expect(try await second.answers() == ["reject 1 storage_full"])
        try await sqlite.close()
    }

    @Test func aResendWaitingInTheBatchAfterTheOneInFlightIsAckedToo() async throws {
        let connection = Connection("s1")
        let sqlite = try await Self.withBoard(commitsOpen: false) { board, gate in
            await board.submit(Self.chat, mut: 1, from: connection.session)
            await gate.entered()
            // mut 2 waits in `pending` behind the batch in flight; its resend attaches there.
            await board.submit(Self.chat, mut: 2, from: connection.session)
            await board.submit(Self.chat, mut: 2, from: connection.session)
        }
        #expect(try await sqlite.events("main", from: 1, to: 10, limit: 10).map(\.mut) == [1, 2])
        #expect(try await connection.answers() == ["ack 1 seq 1", "ack 2 seq 2", "ack 2 seq 2"])
        try await sqlite.close()
    }

    @Test func twoCopiesThatBothReadTheStoreBeforeEitherIsAppliedAreAppliedOnce() async throws {
        // Both copies of mut 1 arrive before the board knows the client (it reads the client's last mutation from
        // the store); the first resumes and is applied, the second must find it rather than apply it again — and
        // must not be refused as over the rate (burst 1) when its mutation is being applied.
        let (gateA, gateB) = (Gate(), Gate())
        let (first, second) = (Connection("s1"), Connection("s2"))
        let sqlite = try await Self.withBoard(readGates: ReadGates([gateA, gateB]), configure: { $0.limits.rateBurst = 1 }) {
            board, _ in
            await Self.twoCopies(of: 1, on: board, from: first, second, gates: (gateA, gateB))
        }
        #expect(try await sqlite.events("main", from: 1, to: 10, limit: 10).count == 1)
        #expect(try await first.answers() == ["ack 1 seq 1"])
        #expect(try await second.answers() == ["ack 1 seq 1"])
        try await sqlite.close()
    }

    @Test func aResendWhoseStoreReadMissedACommitOfTheSameMutationGetsThatAck() async throws {
        // The client has mut 10 applied, so a resend of mut 5 (never applied) is looked up in the store. Two copies
        // are looked up; the first is applied and committed while the second's answer ("not stored") is on its way.
        let (gateA, gateB) = (Gate(), Gate())
        let (first, second) = (Connection("s1"), Connection("s2"))
        let sqlite = try await Self.withBoard(readGates: ReadGates([Gate.opened, gateA, gateB])) { board, _ in
            await board.submit(Self.chat, mut: 10, from: first.session)
            await board.drained()
            await Self.twoCopies(of: 5, on: board, from: first, second, gates: (gateA, gateB)) { await board.drained() }
        }
        #expect(try await sqlite.events("main", from: 1, to: 10, limit: 10).map(\.mut) == [10, 5])
        #expect(try await first.answers() == ["ack 10 seq 1", "ack 5 seq 2"])
        #expect(try await second.answers() == ["ack 5 seq 2"], "its original ack, not stale_mut nor a second apply")
        try await sqlite.close()
    }
}
