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

/// A retained delta must not keep its whole commit batch's buffer alive (that took RSS to 1.17 GB at 10,000
/// retained 4.3 KB deltas with 32 in flight), and the delta log is bounded in bytes as well as in count.
@Suite(.timeLimit(.minutes(1))) struct RetainedDeltaMemoryTests {
    /// A board loaded from a fresh SQLite store, with `configure` applied to its configuration.
    static func withBoard(
        configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (BoardActor) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retained-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        _ = try await sqlite.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        var configuration = ServerConfiguration()
        configure(&configuration)
        let board = try await BoardActor.load(
            "main", store: sqlite, configuration: configuration, clock: WallClock(), logger: Logger(label: "test"))
        try await body(board)
        try await sqlite.close()
    }

    /// Applies `count` chat ops of `size` bytes of text (handed to the store writer as they are applied: the first
    /// alone, the rest as one batch), then answers them all.
    static func commitOneBatch(_ board: BoardActor, count: Int, size: Int, firstMut: UInt64 = 1) async {
        let channel = NIOAsyncTestingChannel()
        let ref = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
        for i in 0..<count {
            let text = String(repeating: "x", count: size - 8) + String(format: "%08d", i)
            await board.submit(.op(.chat(text: text)), mut: firstMut + UInt64(i), from: ref)
        }
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await board.run() }
            await board.drained()
            board.stop()
        }
    }

    @Test func aRetainedDeltaOwnsOnlyItsOwnBytes() async throws {
        try await Self.withBoard { board in
            await Self.commitOneBatch(board, count: 32, size: 4_000)
            let entries = await board.log.entries
            #expect(entries.count == 32)
            for entry in entries {
                // A slice of the batch's shared buffer would report the whole batch (32 × 4 KB) as its storage.
                #expect(
                    entry.line.storageCapacity < 4 * entry.line.readableBytes,
                    "seq \(entry.seq): \(entry.line.readableBytes) bytes keep \(entry.line.storageCapacity) alive")
            }
        }
    }

    @Test func theDeltaLogIsBoundedInBytes() async throws {
        try await Self.withBoard(configure: {
            $0.limits.historyBytes = 40_000
            $0.limits.rateBurst = 1_000
        }) { board in
            await Self.commitOneBatch(board, count: 32, size: 2_000)
            await Self.commitOneBatch(board, count: 32, size: 2_000, firstMut: 33)
            let log = await board.log
            let line = try #require(log.entry(64)).line.readableBytes
            #expect(log.bytes <= 40_000, "\(log.bytes) bytes retained")
            #expect(log.entries.count == 40_000 / line, "\(log.entries.count) entries of \(line) bytes retained")
            // A resume from before what is retained gets a snapshot (nil), never a partial range.
            #expect(await board.retained(from: 1, to: 64) == nil)
            #expect(await board.retained(from: 62, to: 64)?.count == 3)
        }
    }
}
