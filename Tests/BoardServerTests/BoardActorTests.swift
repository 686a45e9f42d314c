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
    @Test func aResendWhileTheOriginalIsBeingWrittenIsAppliedOnceAndAckedToTheNewSession() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("actor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        _ = try await sqlite.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        let gate = Gate()
        let store = GatedStore(inner: sqlite, gate: gate)
        let board = try await BoardActor.load(
            "main", store: store, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
        let first = NIOAsyncTestingChannel()
        let second = NIOAsyncTestingChannel()
        let op = OpRequest.op(.chat(text: "once"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await board.run() }
            // The original is applied and handed to the store, which holds the commit open.
            await board.submit(op, mut: 1, from: SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: first)))
            await gate.entered()
            // The client reconnected and resends the same mutation while the commit is in flight.
            await board.submit(op, mut: 1, from: SessionRef(id: "s2", user: "owner", clientID: "c1", outbox: Outbox(channel: second)))
            await gate.open()
            await board.drained()
            board.stop()
            try await tasks.waitForAll()
        }
        let stored = try await sqlite.events("main", from: 1, to: 10, limit: 10)
        #expect(stored.count == 1, "applied once: \(stored.map(\.seq))")
        await second.testingEventLoop.run()
        let line = try #require(try await second.readOutbound(as: ByteBuffer.self))
        let ack = try LineCoder().decodeServer(Array(line.readableBytesView))
        #expect(ack == .ack(ServerMessage.Ack(board: "main", mut: 1, seq: 1)))
        try await sqlite.close()
    }
}
