import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// Issue 14 defect 7: an open reads the whole file (`PRAGMA quick_check`) only when no mark vouches for it, and any
/// write to the file after the mark makes it check again.
@Suite("SQLiteStore open check")
struct StoreOpenCheckTests {
    /// Rewrites one page in the middle of the database file with the bytes it already holds: a write from outside
    /// that changes nothing but the file's time.
    static func rewritePage(in directory: URL) throws {
        let file = directory.appendingPathComponent(SQLiteStore.fileName)
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let offset = (size / 4096 / 2) * 4096
        try handle.seek(toOffset: offset)
        let page = try #require(try handle.read(upToCount: 4096))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: page)
        try handle.synchronize()
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    @Test("a new file, then a clean close that is trusted until something writes the file")
    func cleanClose() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main")
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(store.openCheck == .created)
            _ = try await store.createBoard(driver.board)
            try await store.append(driver.workload(200, clientID: "cork-a"), snapshots: [])
            try await store.close()
            let path = directory.appendingPathComponent(SQLiteStore.fileName).path
            #expect(!FileManager.default.fileExists(atPath: SQLiteStore.checkedMarkPath(path)), "close keeps no running mark")

            let again = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(again.openCheck == .cleanMark)
            try await again.close()

            try Self.rewritePage(in: directory)
            let checked = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(checked.openCheck == .quickCheck)
            #expect(try await checked.boards().first?.seq == 200)
            try await checked.close()
        }
    }

    @Test("a run that stopped without closing leaves a mark each checkpoint renews; the next open trusts it and recovers the log")
    func crashedRun() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var configuration = SQLiteStore.Configuration()
            configuration.checkpointPages = 16
            let path = directory.appendingPathComponent(SQLiteStore.fileName).path
            var driver = BoardDriver("main")
            // Left open to the end: its files are what a kill -9 leaves at this moment.
            let crashed = try await SQLiteStore.open(directory: directory, configuration: configuration, logger: StoreFixtures.logger)
            _ = try await crashed.createBoard(driver.board)
            let sizeAfterOpen = Self.size(path)
            for _ in 0..<20 {
                try await crashed.append(driver.workload(40, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            }
            #expect(Self.size(path) > sizeAfterOpen, "no checkpoint wrote the main file (\(Self.size(path)) bytes)")
            #expect(SQLiteStore.matches(SQLiteStore.checkedMarkPath(path), path), "the last checkpoint did not renew the mark")
            try await crashed.append(driver.workload(1, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            #expect(Self.size(path + "-wal") > 0, "the last commit should be in the log only")

            let recovered = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(recovered.openCheck == .checkpointMark)
            #expect(try await recovered.boards().first?.seq == 801)
            #expect(try await recovered.quickCheck())

            try Self.rewritePage(in: directory)
            let checked = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(checked.openCheck == .quickCheck)
            #expect(try await checked.boards().first?.seq == 801)
        }
    }

    @Test("a running mark without its log is not trusted")
    func runningMarkWithoutLog() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main")
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            _ = try await store.createBoard(driver.board)
            try await store.append(driver.workload(50, clientID: "cork-a"), snapshots: [])
            try await store.close()
            // As if a run had stamped the mark and its -wal (with -shm) were then taken away.
            let path = directory.appendingPathComponent(SQLiteStore.fileName).path
            SQLiteStore.removeCleanMark(path)
            SQLiteStore.markChecked(path)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            let opened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(opened.openCheck == .quickCheck)
            try await opened.close()
        }
    }
}
