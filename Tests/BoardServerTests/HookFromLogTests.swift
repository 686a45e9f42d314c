import BoardCore
import BoardStore
import BoardTesting
import Foundation
import Logging
import Testing
@testable import BoardServer

/// A webhook's worker takes the board's recent changes from the board's log and reads the store only for changes the
/// log no longer holds (a real SQLite store that counts its reads of changes; `Examples/webhook_receiver.py` as the
/// receiver).
@Suite(.startsProcesses(within: .minutes(2))) struct HookFromLogTests {
    static let secret = "test-secret-0123456789"

    /// Chats `count` lines as the server, each durable before the next.
    static func chat(_ count: Int, on board: BoardActor) async throws {
        for n in 0..<count {
            guard case .success(let seq?) = await board.applyAsServer([.chat(text: "line \(n)")]) else {
                Issue.record("chat \(n) refused")
                return
            }
            for _ in 0..<5_000 where await board.adminChange(at: seq) != .durable { try await Task.sleep(for: .milliseconds(2)) }
        }
    }

    /// Runs the hook dispatcher for one hook (from the board's head) on a board whose log keeps `historyMax`
    /// changes; `before` changes are made before it starts, `after` while it runs. Returns the seqs the receiver
    /// accepted, the seqs expected and the store's reads of changes.
    static func deliver(historyMax: Int, before: Int, after: Int) async throws -> (seqs: [Int], expected: [Int], reads: Int) {
        try await withCountingBoard(historyMax: historyMax, configure: {
            $0.hooks.allowHTTPLoopback = true
            $0.hooks.idlePoll = .milliseconds(200)
        }) { counting in
            let (store, registry, board) = (counting.store, counting.registry, counting.board)
            let (seqs, expected) = try await withHookReceiver(
                secret: secret, logDirectory: counting.directory.appendingPathComponent("logs")
            ) { receiver in
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { await board.run() }
                    defer {
                        board.stop(final: true)
                        tasks.cancelAll()
                    }
                    let head = await board.committed.seq
                    let hook = HookRecord(
                        id: "h-1", board: "main", url: receiver.url, events: ["*"], secret: secret, createdBy: "owner",
                        createdAt: Timestamp(milliseconds: 1), state: HookState(delivered: head))
                    #expect(try await store.addHook(hook, maxPerBoard: 10))
                    try await chat(before, on: board)
                    let hooks = counting.configuration.currentHooks
                    let dispatcher = HookDispatcher(
                        store: store, board: { id in await registry.board(id)?.committedForHooks() },
                        recent: { id, seq in await registry.board(id)?.changesForHooks(after: seq) },
                        settings: { hooks }, signals: counting.configuration.hookSignals, clock: WallClock(),
                        metrics: ServerMetrics(), logger: Logger(label: "test"))
                    tasks.addTask { await dispatcher.run() }
                    try await chat(after, on: board)
                    let expected = (0..<(before + after)).map { Int(head) + 1 + $0 }
                    _ = await receiver.wait { $0.count >= expected.count }
                    return (receiver.deliveries.map(\.seq), expected)
                }
            }
            return (seqs, expected, await store.eventReads.count)
        }
    }

    @Test func changesTheLogHoldsAreNotReadFromTheStore() async throws {
        let (seqs, expected, reads) = try await Self.deliver(historyMax: 100, before: 2, after: 3)
        #expect(seqs == expected, "each change once, in seq order")
        #expect(reads == 0, "the worker read the store for changes the board's log holds")
    }

    @Test func changesTheLogNoLongerHoldsAreReadFromTheStore() async throws {
        // The log keeps the last 2 of the 5 changes made before the worker first looks.
        let (seqs, expected, reads) = try await Self.deliver(historyMax: 2, before: 5, after: 2)
        #expect(seqs == expected, "each change once, in seq order, read from the store or the log")
        #expect(reads > 0)
    }
}
