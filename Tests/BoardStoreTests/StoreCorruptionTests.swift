import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// RELIABILITY D5: a damaged file is refused with `.corrupt` at open and never written to.
@Suite("SQLiteStore refuses damaged files")
struct StoreCorruptionTests {
    /// The ways a stopped server's file gets damaged.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case pageOverwritten = "one 4 KiB page in the middle overwritten"
        case truncated = "truncated to half"
        case truncatedMidPage = "truncated inside a page"
        case garbageHeader = "garbage header"
        case empty = "truncated to 0 bytes"
        case walDeleted = "-wal deleted after a crash (-shm left)"

        var testDescription: String { rawValue }
    }

    /// Makes a sound database with enough events to span many pages, closed cleanly (all in the main file).
    static func seed(in directory: URL) async throws {
        var driver = BoardDriver("main")
        let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
        _ = try await store.createBoard(driver.board)
        try await store.append(driver.workload(400, clientID: "cork-a"), snapshots: [])
        try await store.close()
    }

    /// Applies `damage` to the database file in `directory`.
    static func apply(_ damage: Damage, in directory: URL) throws {
        let file = directory.appendingPathComponent(SQLiteStore.fileName)
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.uint64Value)
        let pageSize: UInt64 = 4096
        #expect(size >= 40 * pageSize, "the seed should span many pages")
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        func garbage(_ count: Int) -> Data {
            Data(String(repeating: "GARBAGE!", count: count / 8 + 1).utf8.prefix(count))
        }
        switch damage {
        case .pageOverwritten:
            try handle.seek(toOffset: (size / pageSize / 2) * pageSize)
            try handle.write(contentsOf: garbage(Int(pageSize)))
        case .truncated:
            try handle.truncate(atOffset: (size / pageSize / 2) * pageSize)
        case .truncatedMidPage:
            try handle.truncate(atOffset: (size / pageSize / 3) * pageSize + 1234)
        case .garbageHeader:
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: garbage(100))
        case .empty:
            try handle.truncate(atOffset: 0)
        case .walDeleted:
            // A crash leaves -wal and -shm; here the -wal is gone and the -shm is still there.
            try Data(count: 32 * 1024).write(to: directory.appendingPathComponent(SQLiteStore.fileName + "-shm"))
        }
        try handle.synchronize()
    }

    @Test("open throws .corrupt and leaves every file byte as it was", arguments: Damage.allCases)
    func refuses(_ damage: Damage) async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            try await Self.seed(in: directory)
            try Self.apply(damage, in: directory)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            let before = StoreFixtures.databaseFiles(in: directory).map(StoreFixtures.bytes)

            let error = await #expect(throws: StoreError.self) {
                _ = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains(SQLiteStore.fileName) == true)
            #expect(error?.message.contains("Restore a backup") == true)

            #expect(StoreFixtures.databaseFiles(in: directory).map(StoreFixtures.bytes) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == names)
            // Asking again gives the same answer: nothing was "repaired" in between.
            let again = await #expect(throws: StoreError.self) {
                _ = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            }
            #expect(again?.code == .corrupt)
        }
    }

    @Test("the seed itself is sound and opens")
    func seedIsSound() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            try await Self.seed(in: directory)
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(try await store.quickCheck() == true)
            #expect(try await store.boards().first?.seq == 400)
            try await store.close()
        }
    }
}
