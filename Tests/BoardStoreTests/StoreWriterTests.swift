import BoardCore
import Foundation
import Synchronization
import Testing

@testable import BoardStore

/// One commit path: the SQLite store's one writer takes what is handed over (`submit`) in call order and
/// answers each hand-over on the writer itself, once its transaction is durable.
@Suite struct StoreWriterTests {
    @Test func handOversWithoutWaitingAreCommittedInCallOrderAndSharedTransactions() async throws {
        try await StoreFixtures.withStore { store, _ in
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            let events = driver.workload(200)
            let before = store.appends.transactions.load(ordering: .relaxed)
            let failures = Atomic<Int>(0)
            let answered = Atomic<Int>(0)
            let encoder = StoreCoding.makeEncoder()
            // Each change is submitted alone, right after the previous one, without waiting for any answer.
            for event in events {
                let change = EncodedChange(
                    event: event, op: try StoreCoding.json(event.op, encoder, "op"),
                    activity: try StoreCoding.json(event.activity, encoder, "activity"),
                    inverse: try event.inverse.map { try StoreCoding.json($0, encoder, "inverse") })
                store.submit(encoded: [change], snapshots: []) { result in
                    if case .failure = result { failures.add(1, ordering: .relaxed) }
                    answered.add(1, ordering: .relaxed)
                }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while answered.load(ordering: .relaxed) < events.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(answered.load(ordering: .relaxed) == events.count)
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(try await store.events("main", from: 1, to: 1_000, limit: 1_000) == events)
            let transactions = store.appends.transactions.load(ordering: .relaxed) - before
            #expect(transactions < events.count, "200 hand-overs never shared a transaction")
        }
    }
}
