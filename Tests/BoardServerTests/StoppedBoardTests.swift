import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// A board whose commit loop has ended (the server is shutting down; sessions stay open until the last acks are
/// out) applies nothing more: an op that arrives then is refused with `storage_busy` and `drained()` returns. It was
/// applied and handed to the writer, whose answer nobody heard: no ack ever, and a `bye` waiting in `drained()`
/// kept the session, and with it the server's shutdown, waiting forever.
@Suite(.timeLimit(.minutes(1))) struct StoppedBoardTests {
    @Test func anOpAfterTheBoardStoppedIsRefusedAndDrainedReturns() async throws {
        try await withScratchStore("stopped") { sqlite in
            let board = try await BoardActor.load(
                "main", store: sqlite, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
            board.stop(final: true)
            await board.run()
            let channel = NIOAsyncTestingChannel()
            let session = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
            await board.submit(.op(.chat(text: "too late")), mut: 1, from: session)
            // Bounded: if the stopped board still applied the op, `drained()` would never return.
            let (done, sink) = AsyncStream.makeStream(of: Bool.self)
            let drain = Task {
                await board.drained()
                sink.yield(true)
            }
            let bound = Task {
                try? await Task.sleep(for: .seconds(10))
                sink.yield(false)
            }
            var iterator = done.makeAsyncIterator()
            let drainedInTime = await iterator.next() ?? false
            bound.cancel()
            drain.cancel()
            #expect(drainedInTime, "drained() did not return")
            await channel.testingEventLoop.run()
            let line = try #require(try await channel.readOutbound(as: ByteBuffer.self))
            let answer = try LineCoder().decodeServer(Array(line.readableBytesView))
            guard case .reject(let reject) = answer else {
                Issue.record("expected a reject, got \(answer)")
                return
            }
            #expect(reject.code == .storageBusy && reject.mut == 1, "\(reject)")
            #expect(try await sqlite.events("main", from: 1, to: 10, limit: 10).isEmpty, "nothing was stored")
        }
    }
}
