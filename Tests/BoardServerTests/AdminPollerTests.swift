import BoardTesting
import BoardCore
import BoardStore
import Foundation
import Logging
import Testing
@testable import BoardServer

/// The admin poller against a store that refuses to record an outcome once (tier 3: no sockets).
@Suite(.timeLimit(.minutes(1))) struct AdminPollerTests {
    @Test func anOutcomeThatCouldNotBeRecordedIsRecordedLaterWithoutApplyingTheCommandTwice() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("poller-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        let store = GatedStore(inner: sqlite, gate: Gate(), finishFailures: FailureBudget(1))
        let (started, continuation) = AsyncStream.makeStream(of: BoardActor.self)
        _ = started
        let registry = BoardRegistry(
            store: store, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"),
            started: continuation)
        let poller = AdminPoller(
            registry: registry, directory: SessionDirectory(connectionsMax: 10, perUserMax: 10, preauthPerIP: 10),
            store: store, interval: .milliseconds(5), logger: Logger(label: "test"))
        let id = try await sqlite.enqueue(.createBoard(board: "ops", name: "Ops", owner: "owner"), now: WallClock().now())

        let outcome = try await withThrowingTaskGroup(of: AdminOutcome?.self) { tasks in
            tasks.addTask { await poller.run(); return nil }
            tasks.addTask {
                for _ in 0..<2_000 {
                    if let outcome = try await sqlite.outcomes([id])[id], outcome != .pending { return outcome }
                    try await Task.sleep(for: .milliseconds(5))
                }
                return nil
            }
            let first = try await tasks.next() ?? nil
            tasks.cancelAll()
            return first
        }
        // Before: the batch was applied again after the failed write, and the create that had worked was
        // recorded as refused ("board id ops is taken").
        #expect(outcome == .done, "\(String(describing: outcome))")
        #expect(try await sqlite.boards().map(\.id).contains("ops"))
        continuation.finish()
        try await sqlite.close()
    }
}
