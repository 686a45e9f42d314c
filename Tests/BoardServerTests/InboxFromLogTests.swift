import BoardCore
import BoardStore
import Foundation
import Logging
import Testing
@testable import BoardServer

/// The inbox deriver takes a board's recent changes from the board's log and reads the store only for changes the
/// log no longer holds (tier 3: no sockets; a real SQLite store that counts its reads of changes).
@Suite(.timeLimit(.minutes(2))) struct InboxFromLogTests {
    /// Mentions `@owner` in the description of `count` new cards, each durable before the next.
    static func addMentions(_ count: Int, from first: Int, on board: BoardActor) async throws {
        for n in first..<(first + count) {
            let op = Op.addCard(AddCard(card: CardID("c\(n)"), title: "card \(n)", description: "@owner look at \(n)"))
            guard case .success(let seq?) = await board.applyAsServer([op]) else {
                Issue.record("card \(n) refused")
                return
            }
            for _ in 0..<5_000 where await board.adminChange(at: seq) != .durable { try await Task.sleep(for: .milliseconds(2)) }
        }
    }

    /// Runs the inbox service on one board whose log keeps `historyMax` changes; `before` cards are added before the
    /// service starts, `after` while it runs. Returns the owner's entries and the store's reads of changes.
    static func derive(historyMax: Int, before: Int, after: Int) async throws -> (entries: Int, reads: Int) {
        try await withCountingBoard(historyMax: historyMax) { counting in
            let (store, board) = (counting.store, counting.board)
            let service = InboxService(
                store: store, registry: counting.registry,
                directory: SessionDirectory(connectionsMax: 10, perUserMax: 10, preauthPerIP: 10),
                signals: counting.configuration.inboxSignals, shared: nil, clock: WallClock(), reminderScan: .seconds(3600),
                reminderLead: .seconds(86_400), mail: MailSettings(), logger: Logger(label: "test"))
            let expected = before + after
            let entries = try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await board.run() }
                defer {
                    board.stop(final: true)
                    tasks.cancelAll()
                }
                try await addMentions(before, from: 0, on: board)
                tasks.addTask { await service.run() }
                try await addMentions(after, from: before, on: board)
                // The deriver looks every 200 ms (20 s bound for a busy machine).
                var found = 0
                for _ in 0..<2_000 {
                    found = try await store.inbox(user: "owner", unreadOnly: false, before: nil, limit: 100).count
                    if found >= expected { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                return found
            }
            return (entries, await store.eventReads.count)
        }
    }

    @Test func changesTheLogHoldsAreNotReadFromTheStore() async throws {
        let (entries, reads) = try await Self.derive(historyMax: 100, before: 3, after: 3)
        #expect(entries == 6)
        #expect(reads == 0, "the deriver read the store for changes the board's log holds")
    }

    @Test func changesTheLogNoLongerHoldsAreReadFromTheStore() async throws {
        // The log keeps the last 2 of the 5 changes made before the deriver first looks.
        let (entries, reads) = try await Self.derive(historyMax: 2, before: 5, after: 2)
        #expect(entries == 7, "every mention reaches the inbox, read from the store or the log")
        #expect(reads > 0)
    }
}
