import BoardCore
import Foundation
import GRDB
import Testing
@testable import BoardStore

/// The SQLite store runs on threads of its own (`StoreThreads`), not on libdispatch's overcommit
/// threads behind GRDB's async API, whose continuation caches kept the connections' memory resident; and those
/// threads end with the store.
@Suite(.timeLimit(.minutes(1))) struct StoreThreadsTests {
    /// The calling thread's name (Linux keeps 15 bytes of it).
    static func threadName() -> String {
        let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    /// The calling thread's `/proc` directory (`/proc/PID/task/TID`).
    static func threadDirectory() -> String {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "?"
        return "/proc/" + link
    }

    @Test func readsWritesAndCommitsRunOnTheStoresOwnThreads() async throws {
        try await StoreFixtures.withStore { store, _ in
            let read = try await store.read("which thread") { _ in Self.threadName() }
            #expect(read.hasPrefix(StoreThreads.readerName), "a read ran on \(read)")
            let written = try await store.write("which thread") { _ in Self.threadName() }
            #expect(written.hasPrefix(StoreThreads.writerName), "a write ran on \(written)")
            let untransacted = try await store.writeWithoutTransaction("which thread") { _ in Self.threadName() }
            #expect(untransacted.hasPrefix(StoreThreads.writerName), "a write ran on \(untransacted)")
            // A commit runs on the writer, and its `done` is called there, right after its transaction.
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            let added = driver.addCard("c1")
            let event = try #require(added)
            let encoder = StoreCoding.makeEncoder()
            let change = EncodedChange(
                event: event, op: try StoreCoding.json(event.op, encoder, "op"),
                activity: try StoreCoding.json(event.activity, encoder, "activity"),
                inverse: try event.inverse.map { try StoreCoding.json($0, encoder, "inverse") })
            let (answered, result) = await withCheckedContinuation { continuation in
                store.submit(encoded: [change], snapshots: []) {
                    continuation.resume(returning: (Self.threadName(), $0))
                }
            }
            #expect(answered.hasPrefix(StoreThreads.writerName), "a commit was answered on \(answered)")
            #expect((try? result.get()) != nil, "\(result)")
            #expect(try await store.events("main", from: 1, to: 10, limit: 10) == [event])
        }
    }

    /// Reads racing a close either read or fail with a `StoreError`; none reaches a closed connection (one that did
    /// crashed the test process inside SQLite).
    @Test func readsThatRaceACloseReadOrFailButNeverReachAClosedConnection() async throws {
        for _ in 0..<5 {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
                let outcomes = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<100 {
                        group.addTask { (try? await store.read("race") { db in try Int.fetchOne(db, sql: "SELECT 1") }) != nil }
                    }
                    group.addTask {
                        try? await store.close()
                        return true
                    }
                    var read = 0
                    for await outcome in group where outcome { read += 1 }
                    return read
                }
                #expect(outcomes >= 1)
                await #expect(throws: StoreError.self) { try await store.read("after") { _ in 1 } }
            }
        }
    }

    @Test func theThreadsEndWithTheLastCopyOfTheirOwner() async throws {
        var threads: StoreThreads? = StoreThreads(readers: 2)
        let reader = try await threads?.read { Self.threadDirectory() } ?? "?"
        let writer = await threads?.write(closed: "?") { Self.threadDirectory() } ?? "?"
        let exists = { (path: String) in FileManager.default.fileExists(atPath: path) }
        #expect(reader != writer && exists(reader) && exists(writer), "\(reader), \(writer)")
        threads = nil
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, exists(reader) || exists(writer) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!exists(reader), "the reader thread \(reader) still runs")
        #expect(!exists(writer), "the writer thread \(writer) still runs")
    }
}
