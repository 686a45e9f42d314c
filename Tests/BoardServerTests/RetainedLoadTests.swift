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

/// Loading a board reads no history (start time does not grow with the log); the retained
/// changes are read from the store when a resume first needs them, and the resume gets exactly the missed deltas.
@Suite(.timeLimit(.minutes(1))) struct RetainedLoadTests {
    @Test func aLoadedBoardReadsItsRetainedChangesOnlyWhenAResumeNeedsThem() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retained-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        var board = Board(id: "main", name: "Main", owner: "owner")
        let record = try await store.createBoard(board)
        var events: [StoredEvent] = []
        for n in 1...30 {
            let at = Timestamp(milliseconds: WallClock().now().milliseconds)
            let context = ApplyContext(actor: "owner", role: .owner, now: at, seq: board.seq + 1)
            guard case .success(let change) = board.apply(.chat(text: "\(n)"), context: context) else {
                throw TestFailure("chat \(n) refused")
            }
            events.append(
                StoredEvent(
                    board: "main", seq: context.seq, at: at, actor: "owner", clientID: "c1", mut: UInt64(n),
                    op: .chat(text: "\(n)"), activity: change.activity, inverse: change.inverse))
        }
        try await store.append(events, snapshots: [])
        let actor = try await BoardActor.load(
            "main", store: store, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
        #expect(await actor.log.entries.isEmpty, "loading read the history")

        let channel = NIOAsyncTestingChannel()
        let session = SessionRef(id: "s1", user: "owner", clientID: "c2", outbox: Outbox(channel: channel))
        await actor.subscribe(session, since: 10, epoch: record.epoch, present: false, req: nil)
        await channel.testingEventLoop.run()
        var types: [String] = []
        var seqs: [Int] = []
        while let line = try await channel.readOutbound(as: ByteBuffer.self) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any])
            types.append(object["type"] as? String ?? "?")
            if object["type"] as? String == "delta", let seq = object["seq"] as? Int { seqs.append(seq) }
        }
        #expect(seqs == Array(11...30), "exactly the missed deltas: \(types)")
        #expect(!types.contains("snapshot"))
        #expect(await actor.log.entries.count == 30)
        try await store.close()
    }

    @Test func aCleanStopStoresASnapshotSoTheNextStartReplaysNoTail() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retained-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        _ = try await store.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        let actor = try await BoardActor.load(
            "main", store: store, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
        let channel = NIOAsyncTestingChannel()
        let session = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await actor.run() }
            for mut in 1...25 { await actor.submit(.op(.chat(text: "\(mut)")), mut: UInt64(mut), from: session) }
            await actor.drained()
            actor.stop()
            try await tasks.waitForAll()
        }
        let loaded = try #require(try await store.load("main"))
        #expect(loaded.snapshot.seq == 25 && loaded.tail.isEmpty, "snapshot at \(loaded.snapshot.seq), tail \(loaded.tail.count)")
        try await store.close()
    }
}
