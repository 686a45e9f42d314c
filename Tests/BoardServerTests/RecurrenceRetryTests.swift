import BoardCore
import BoardStore
import Foundation
import Logging
import Testing
@testable import BoardServer

/// A recurring card's next occurrence whose commit fails is added again: the inbox's cursor does not pass the close
/// until the occurrence is durable (tier 3: no sockets; a store that refuses one write).
@Suite(.timeLimit(.minutes(2))) struct RecurrenceRetryTests {
    @Test func anOccurrenceWhoseCommitFailedIsAddedAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recur-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        let failures = FailureBudget(0)
        let store = GatedStore(inner: sqlite, gate: .opened, appendFailures: failures)
        let (_, continuation) = AsyncStream.makeStream(of: BoardActor.self)
        let registry = BoardRegistry(
            store: store, configuration: ServerConfiguration(), clock: WallClock(), logger: Logger(label: "test"),
            started: continuation)
        let service = InboxService(
            store: store, registry: registry, directory: SessionDirectory(connectionsMax: 10, perUserMax: 10, preauthPerIP: 10),
            signals: InboxSignals(), shared: nil, clock: WallClock(), reminderScan: .seconds(3600), reminderLead: .seconds(86_400),
            mail: MailSettings(), logger: Logger(label: "test"))
        let board = try #require(try await registry.create("main", name: "Main", owner: "owner"))
        let found = try await withThrowingTaskGroup(of: Void.self) { tasks in
            // The board's commit loop, as the server runs it; it returns after `stop(final:)`.
            tasks.addTask { await board.run() }
            defer {
                board.stop(final: true)
                tasks.cancelAll()
            }
            // A daily card, done: its close is durable before the inbox service looks.
            for op: Op in [
                .addCard(AddCard(card: "c1", title: "Water the plants", due: Day(year: 2030, month: 3, day: 4))),
                .setRecurrence(card: "c1", recurrence: Recurrence(every: .day)),
                .closeCard(card: "c1"),
            ] {
                guard case .success(let seq?) = await board.applyAsServer([op]) else {
                    Issue.record("\(op.kind)")
                    return false
                }
                for _ in 0..<5_000 where await board.adminChange(at: seq) != .durable { try await Task.sleep(for: .milliseconds(2)) }
            }
            // The occurrence's first commit fails (a full disk); the service must add it again.
            await failures.plant(1)
            tasks.addTask { await service.run() }
            // The service looks at every board again every 5 s: the retry comes with that look (45 s bound for a busy machine).
            for _ in 0..<4_500 {
                let cards = await board.committed.cards.values
                if cards.contains(where: { $0.ref?.hasPrefix("recur:") == true && $0.due == Day(year: 2030, month: 3, day: 5) && $0.recur != nil }) {
                    return true
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            return false
        }
        #expect(found, "the next occurrence was never added after its first commit failed")
        #expect(await failures.take() == false, "the planted failure was used")
        continuation.finish()
        try await sqlite.close()
    }
}
