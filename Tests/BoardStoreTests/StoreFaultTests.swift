import BoardCore
import Foundation
import GRDB
import Testing

@testable import BoardStore

/// RELIABILITY D3 (disk full) and D4 (database locked by another process).
@Suite("SQLiteStore under faults")
struct StoreFaultTests {
    @Test("disk full: append throws .full, writes nothing, reads go on; raising the limit lets appends resume")
    func diskFull() async throws {
        try await StoreFixtures.withStore { store, _ in
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            let pages = try await store.pageCount()
            #expect(try await store.setMaxPageCount(pages + 24) == pages + 24)

            let text = String(repeating: "disk full? ", count: 360)  // ~4 KB per op, twice per event (op + activity)
            var committed: UInt64 = 0
            var failed: [StoredEvent] = []
            var failure: StoreError?
            for _ in 0..<100 {
                let batch = (0..<4).compactMap { _ in driver.chat(text) }
                do throws(StoreError) {
                    try await store.append(batch, snapshots: [])
                    committed = batch.last?.seq ?? committed
                } catch {
                    failure = error
                    failed = batch
                    break
                }
            }
            let error = try #require(failure)
            #expect(error.code == .full)
            #expect(error.isRetryable)
            #expect(committed > 0)
            #expect(try await store.writerIsInTransaction() == false, "the failed transaction was rolled back")

            // Nothing of the failed batch is there; reads and the integrity check still work.
            #expect(try await store.boards().first?.seq == committed)
            #expect(try await store.events("main", from: committed + 1, to: .max, limit: 100).isEmpty)
            #expect(try await store.events("main", from: 1, to: .max, limit: 1000).count == Int(committed))
            #expect(try await store.quickCheck() == true)
            // Still full: the same batch fails again, the same way.
            let again = await #expect(throws: StoreError.self) { try await store.append(failed, snapshots: []) }
            #expect(again?.code == .full)

            _ = try await store.setMaxPageCount(1_000_000)
            try await store.append(failed, snapshots: [driver.board])
            #expect(try await store.boards().first?.seq == driver.board.seq)
            #expect(try await store.load("main")?.replayed() == driver.board)
        }
    }

    @Test("locked by another process: append throws .busy after the busy timeout, reads go on; then it succeeds")
    func busy() async throws {
        let configuration = SQLiteStore.Configuration(busyTimeout: .milliseconds(200))
        try await StoreFixtures.withStore(configuration: configuration) { store, directory in
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            try await store.append(driver.workload(3), snapshots: [])

            var blockerConfiguration = GRDB.Configuration()
            blockerConfiguration.allowsUnsafeTransactions = true
            let blocker = try DatabaseQueue(
                path: directory.appendingPathComponent(SQLiteStore.fileName).path, configuration: blockerConfiguration)
            try await blocker.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }

            let batch = [driver.chat("while locked")].compactMap { $0 }
            let error = await #expect(throws: StoreError.self) { try await store.append(batch, snapshots: []) }
            #expect(error?.code == .busy)
            #expect(error?.isRetryable == true)
            #expect(try await store.writerIsInTransaction() == false)
            // Readers are not blocked by the lock (WAL).
            #expect(try await store.boards().first?.seq == 3)
            #expect(try await store.events("main", from: 1, to: 10, limit: 10).count == 3)

            try await blocker.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
            try blocker.close()
            try await store.append(batch, snapshots: [])
            #expect(try await store.boards().first?.seq == 4)
        }
    }

    @Test("SQLite result codes map to store codes")
    func errorMapping() {
        #expect(StoreError.code(for: .SQLITE_FULL) == .full)
        #expect(StoreError.code(for: .SQLITE_BUSY) == .busy)
        #expect(StoreError.code(for: .SQLITE_BUSY_SNAPSHOT) == .busy)
        #expect(StoreError.code(for: .SQLITE_LOCKED) == .busy)
        #expect(StoreError.code(for: .SQLITE_CORRUPT) == .corrupt)
        #expect(StoreError.code(for: .SQLITE_NOTADB) == .corrupt)
        #expect(StoreError.code(for: .SQLITE_CONSTRAINT_UNIQUE) == .duplicate)
        #expect(StoreError.code(for: .SQLITE_CONSTRAINT_PRIMARYKEY) == .duplicate)
        #expect(StoreError.code(for: .SQLITE_CONSTRAINT_FOREIGNKEY) == .notFound)
        #expect(StoreError.code(for: .SQLITE_IOERR_FSYNC) == .io)
        #expect(StoreError.code(for: .SQLITE_CANTOPEN) == .io)
        #expect(StoreError.code(for: .SQLITE_MISUSE) == .internal)
        let mapped = StoreError(
            DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full"), context: "append")
        #expect(mapped.code == .full && mapped.description.hasPrefix("full: append: database or disk is full"))
        let passed = StoreError(StoreError(.notFound, "x"), context: "ignored")
        #expect(passed == StoreError(.notFound, "x"))
    }
}
