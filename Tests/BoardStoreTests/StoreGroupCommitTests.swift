import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// Group commit across boards: concurrent appends share transactions, and a bad one fails alone.
@Suite struct StoreGroupCommitTests {
    @Test func concurrentAppendsShareTransactionsAndABadBatchFailsAlone() async throws {
        try await StoreFixtures.withStore { store, _ in
            var drivers = (0..<24).map { BoardDriver(BoardID("b\($0)")) }
            for driver in drivers { _ = try await store.createBoard(driver.board) }
            var sharedOnce = false
            let rounds = 8
            for _ in 0..<rounds {
                let batches = drivers.indices.map { drivers[$0].workload(3) }
                let bad = Array(batches[5].dropFirst())  // starts one seq past the stored head
                let before = store.appends.transactions.load(ordering: .relaxed)
                let failures = await withTaskGroup(of: (Int, StoreError.Code?).self) { group in
                    for index in batches.indices {
                        let events = index == 5 ? bad : batches[index]
                        group.addTask {
                            do {
                                try await store.append(events, snapshots: [])
                                return (index, nil)
                            } catch {
                                return (index, (error as? StoreError)?.code ?? .internal)
                            }
                        }
                    }
                    var failures: [Int: StoreError.Code] = [:]
                    for await (index, code) in group { if let code { failures[index] = code } }
                    return failures
                }
                #expect(failures == [5: .internal])
                if store.appends.transactions.load(ordering: .relaxed) - before < batches.count { sharedOnce = true }
                try await store.append(batches[5], snapshots: [])
            }
            #expect(sharedOnce, "24 concurrent appends never shared a transaction in \(rounds) rounds")
            for driver in drivers {
                let stored = try await store.events(driver.board.id, from: 1, to: 1_000, limit: 1_000)
                #expect(stored.map(\.seq) == Array(1...UInt64(3 * rounds)))
            }
        }
    }
}
