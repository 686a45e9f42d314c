import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import BoardServer

/// Encode once: the store keeps the op and activity texts of each change's `delta` line; nothing is
/// encoded a second time for the store.
@Suite(.timeLimit(.minutes(1))) struct EncodeOnceTests {
    /// Counts every op and activity the store encodes itself.
    final class CountingEventJSON: EventJSON {
        let calls = Atomic<Int>(0)
        func op(_ op: Op) -> String {
            calls.add(1, ordering: .relaxed)
            return LineWriter.opJSON(op)
        }
        func activity(_ activity: Activity) -> String {
            calls.add(1, ordering: .relaxed)
            return LineWriter.activityJSON(activity)
        }
    }

    @Test func theStoreWritesTheDeltaLineTextsAndEncodesNothingAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("once-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let counting = CountingEventJSON()
        let sqlite = try await SQLiteStore.open(
            directory: directory, configuration: SQLiteStore.Configuration(eventJSON: counting), logger: Logger(label: "test"))
        _ = try await sqlite.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        let board = try await BoardActor.load(
            "main", store: sqlite, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
        let channel = NIOAsyncTestingChannel()
        let session = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await board.run() }
            await board.submit(.op(.addColumn(column: "qa", name: "QA", index: nil)), mut: 1, from: session)
            await board.submit(.op(.renameColumn(column: "qa", name: "Checks")), mut: 2, from: session)
            await board.drained()
            board.stop()
            try await tasks.waitForAll()
        }
        #expect(counting.calls.load(ordering: .relaxed) == 0, "the store encoded ops or activities again")
        let stored = try await sqlite.events("main", from: 1, to: 10, limit: 10)
        try #require(stored.count == 2)
        // What the store reads back is the change as applied: names (left out of deltas) and the inverse included.
        #expect(stored[1].op == .renameColumn(column: "qa", name: "Checks"))
        #expect(stored[1].inverse == .renameColumn(column: "qa", name: "QA"))
        #expect(stored[1].activity.names?.columns?["qa"] != nil, "names: \(String(describing: stored[1].activity.names))")
        let replayed = try await BoardActor.load(
            "main", store: sqlite, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"))
        #expect(await replayed.committed.columns.first { $0.id == "qa" }?.name == "Checks")
        try await sqlite.close()
    }
}
