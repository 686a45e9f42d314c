import BoardCore
import BoardStore
import BoardTesting
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// The board actor when the database goes away during a commit (PostgreSQL: `COMMIT` sent, no answer): the batch
/// may be stored or not, so it is neither acknowledged nor rejected until a read of the store says which (tier 3: no
/// sockets, a SQLite store that plays the lost answer).
@Suite(.timeLimit(.minutes(1))) struct LostCommitTests {
    @Test("a commit whose answer was lost but which landed is acknowledged at its seq once the database answers; ops sent meanwhile are refused, retryable; nothing is stored twice")
    func landedCommitIsAcknowledged() async throws {
        let lines = try await Self.run(landed: true)
        #expect(lines.contains(.ack(ServerMessage.Ack(board: "main", mut: 1, seq: 1))), "mut 1 acknowledged at seq 1: \(lines)")
        #expect(!lines.contains { if case .reject(let r) = $0 { r.mut == 1 } else { false } }, "mut 1 is stored, never rejected: \(lines)")
    }

    @Test("a commit whose answer was lost and which did not land is written again and acknowledged once the database answers")
    func lostCommitIsWrittenAgain() async throws {
        let lines = try await Self.run(landed: false)
        #expect(lines.contains(.ack(ServerMessage.Ack(board: "main", mut: 1, seq: 1))), "mut 1 acknowledged at seq 1: \(lines)")
        #expect(!lines.contains { if case .reject(let r) = $0 { r.mut == 1 } else { false } }, "mut 1 was stored, never rejected: \(lines)")
    }

    /// Mut 1 is committed with its answer lost (`landed` or not); mut 2 is sent while the database is away; then the
    /// database answers. Returns every line the session got; checks the store holds mut 1 once, and mut 2 nowhere.
    static func run(landed: Bool) async throws -> [ServerMessage] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lost-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        _ = try await sqlite.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        let gate = Gate()
        let lost = LostCommits()
        var store = GatedStore(inner: sqlite, gate: gate)
        store.lostCommits = lost
        let board = try await BoardActor.load(
            "main", store: store, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
        let channel = NIOAsyncTestingChannel()
        let session = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
        await lost.loseNext(landed: landed)
        var received: [ServerMessage] = []
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await board.run() }
            await board.submit(.op(.chat(text: "mut 1")), mut: 1, from: session)
            await gate.entered()
            await gate.open()
            // The database is away: an op sent now is refused (it is applied nowhere), whether it comes before or
            // after the board learns that the commit's answer was lost.
            await board.submit(.op(.chat(text: "mut 2")), mut: 2, from: session)
            var answered = false
            for _ in 0..<500 where !answered {
                received += try await Self.lines(channel)
                answered = received.contains { if case .reject(let r) = $0 { r.mut == 2 } else { false } }
                if !answered { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(answered, "mut 2 is answered while the database is away")
            await lost.reachable()
            await board.drained()
            board.stop()
            try await tasks.waitForAll()
        }
        received += try await Self.lines(channel)
        let stored = try await sqlite.events("main", from: 1, to: 10, limit: 10)
        #expect(stored.map(\.mut) == [1], "mut 1 stored once, mut 2 not at all: \(stored.map { ($0.seq, $0.mut) })")
        try await sqlite.close()
        return received
    }

    /// The lines written to `channel` since the last call.
    static func lines(_ channel: NIOAsyncTestingChannel) async throws -> [ServerMessage] {
        await channel.testingEventLoop.run()
        var messages: [ServerMessage] = []
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
            for line in buffer.readableBytesView.split(separator: UInt8(ascii: "\n")) {
                messages.append(try LineCoder().decodeServer(Array(line)))
            }
        }
        return messages
    }
}
