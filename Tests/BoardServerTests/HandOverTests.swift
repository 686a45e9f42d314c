import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// One commit path and one hop per op: an applied change goes straight from the board to the store's
/// writer, with no commit loop of the board's own in between, and the writer sends its ack without waking the board.
@Suite(.timeLimit(.minutes(1))) struct HandOverTests {
    @Test func anAppliedChangeReachesTheStoreWithoutTheBoardsLoop() async throws {
        try await withScratchStore("handover") { sqlite in
            let board = try await BoardActor.load(
                "main", store: sqlite, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
            let channel = NIOAsyncTestingChannel()
            let session = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
            // `run()` is not running: only the answers (acks, fan-out) wait for it, not the commit.
            await board.submit(.op(.chat(text: "straight to the writer")), mut: 1, from: session)
            let deadline = ContinuousClock.now + .seconds(30)
            var stored: [StoredEvent] = []
            while stored.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                stored = try await sqlite.events("main", from: 1, to: 10, limit: 10)
            }
            #expect(stored.map(\.seq) == [1], "the change was not handed to the store")
            // Acknowledged all the same: the writer publishes the ack itself the moment the change is durable.
            var line: ByteBuffer?
            while line == nil, ContinuousClock.now < deadline {
                await channel.testingEventLoop.run()
                line = try await channel.readOutbound(as: ByteBuffer.self)
                if line == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            let ack = try #require(line, "no ack without the board's loop")
            #expect(try LineCoder().decodeServer(Array(ack.readableBytesView)) == .ack(ServerMessage.Ack(board: "main", mut: 1, seq: 1)))
            // The board settles its own state (committed, log, exactly-once) only when its loop hears the writer.
            #expect(await board.committed.seq == 0)
            try await Self.runUntilDrained(board)
            #expect(await board.committed.seq == 1)
            await channel.testingEventLoop.run()
            #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil, "the ack is sent once")
        }
    }

    /// Whoever heard of a change from the writer (its ack, its delta) and asks the board next finds it, although the
    /// writer's answer has not reached the board's loop: the board settles a published batch at its next request. A
    /// subscription then starts after the change, a fetch of it is served (not "ahead of the board"), an undo of it
    /// is applied, and the writer's late answer to the settled batch is ignored.
    @Test func aRequestAfterTheWritersPublishFindsTheChangeBeforeTheBoardsLoopHearsOfIt() async throws {
        try await withScratchStore("handover-window") { sqlite in
            let board = try await BoardActor.load(
                "main", store: sqlite, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
            let (senderChannel, followerChannel, lateChannel) =
                (NIOAsyncTestingChannel(), NIOAsyncTestingChannel(), NIOAsyncTestingChannel())
            let sender = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: senderChannel))
            let follower = SessionRef(id: "s2", user: "owner", clientID: "c2", outbox: Outbox(channel: followerChannel))
            let late = SessionRef(id: "s3", user: "owner", clientID: "c3", outbox: Outbox(channel: lateChannel))
            await board.subscribe(follower, since: nil, epoch: nil, present: false, req: nil)
            #expect(try await Self.lines(followerChannel) == ["snapshot 0", "subscribed 0", "presence.state"])
            // `run()` is not running: the writer publishes, the board's loop never hears of it.
            await board.submit(.op(.addCard(AddCard(card: "c9", title: "in the window"))), mut: 1, from: sender)
            let deadline = ContinuousClock.now + .seconds(30)
            var seen: [String] = []
            while seen.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                seen = try await Self.lines(followerChannel)
            }
            #expect(seen == ["delta 1"])
            #expect(try await Self.lines(senderChannel) == ["ack 1"])
            #expect(await board.committed.seq == 0, "not settled yet")
            await board.subscribe(late, since: nil, epoch: nil, present: false, req: nil)
            #expect(try await Self.lines(lateChannel) == ["snapshot 1", "subscribed 1", "presence.state"])
            #expect(await board.committed.seq == 1, "settled by the request")
            await board.fetch(follower, from: 1, to: 1, req: nil)
            #expect(try await Self.lines(followerChannel) == ["delta 1", "ok"])
            await board.submit(.undo(seq: 1), mut: 2, from: sender)
            try await Self.runUntilDrained(board)
            #expect(await board.committed.seq == 2)
            #expect(await board.committed.cards["c9"]?.archived == true, "the undo was applied (it archives the card)")
            #expect(try await Self.lines(lateChannel) == ["delta 2"], "the late subscriber gets each change once")
            #expect(try await Self.lines(senderChannel) == ["ack 2"])
        }
    }

    /// Runs the board's loop until everything applied is settled, then stops it.
    static func runUntilDrained(_ board: BoardActor) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await board.run() }
            await board.drained()
            board.stop()
            try await tasks.waitForAll()
        }
    }

    /// The lines written to a channel since the last call: `type`, then `seq` (for `ack`, its `mut`).
    static func lines(_ channel: NIOAsyncTestingChannel) async throws -> [String] {
        await channel.testingEventLoop.run()
        var bytes: [UInt8] = []
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return try bytes.split(separator: UInt8(ascii: "\n")).map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let type = object["type"] as? String ?? "?"
            if type == "ack", let mut = object["mut"] as? Int { return "ack \(mut)" }
            if let seq = object["seq"] as? Int { return "\(type) \(seq)" }
            return type
        }
    }
}
