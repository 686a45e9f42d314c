import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// Issue 12, "One commit path": an applied change goes straight from the board to the store's writer; there is no
/// commit loop of the board's own in between.
@Suite(.timeLimit(.minutes(1))) struct HandOverTests {
    @Test func anAppliedChangeReachesTheStoreWithoutTheBoardsLoop() async throws {
        try await withScratchStore("handover") { sqlite in
            let board = try await BoardActor.load(
                "main", store: sqlite, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
            let channel = NIOAsyncTestingChannel()
            let session = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
            // `run()` is not running: only the answers (acks, fan-out) wait for it, not the commit.
            await board.submit(.op(.chat(text: "straight to the writer")), mut: 1, from: session)
            let deadline = ContinuousClock.now + .seconds(10)
            var stored: [StoredEvent] = []
            while stored.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                stored = try await sqlite.events("main", from: 1, to: 10, limit: 10)
            }
            #expect(stored.map(\.seq) == [1], "the change was not handed to the store")
            // Not acknowledged yet: the board answers once it hears from the writer (in `run()`).
            await channel.testingEventLoop.run()
            #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await board.run() }
                await board.drained()
                board.stop()
                try await tasks.waitForAll()
            }
            await channel.testingEventLoop.run()
            let line = try #require(try await channel.readOutbound(as: ByteBuffer.self))
            #expect(try LineCoder().decodeServer(Array(line.readableBytesView)) == .ack(ServerMessage.Ack(board: "main", mut: 1, seq: 1)))
        }
    }
}
