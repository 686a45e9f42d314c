import BoardCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import BoardStore

/// An open reads the whole file (`PRAGMA quick_check`) only when no mark vouches for it, and any
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

    /// A restore done with corkd running (a backup put in place of `corkd.sqlite`): commits into the file corkd had
    /// open would be acknowledged and lost with it, and its clean close vouched for the restored file, so the next
    /// start did not check it. Now the next commit is refused, saying why, and the close leaves no mark.
    @Test("a file put in place of the open store: no commit goes to the old one, and no mark vouches for the new one")
    func aFileReplacedUnderTheStore() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main")
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            _ = try await store.createBoard(driver.board)
            try await store.append(driver.workload(5, clientID: "cork-a"), snapshots: [])
            let path = store.path
            let backup = directory.appendingPathComponent("backup.sqlite")
            try await store.backup(to: backup)
            // As `install -m0600 backup corkd.sqlite` does: a new file renamed over the path.
            let copy = directory.appendingPathComponent("copy.sqlite")
            try FileManager.default.copyItem(at: backup, to: copy)
            #expect(rename(copy.path, path) == 0)

            do {
                try await store.append(driver.workload(1, clientID: "cork-a", firstMut: 6), snapshots: [])
                Issue.record("a commit went to the replaced file")
            } catch let error as StoreError {
                #expect(error.code == .io && error.message.contains("was replaced or removed"), "\(error)")
                #expect(!error.message.contains(path), "clients are not told the server's paths: \(error)")
            }
            do {
                try await store.close()
                Issue.record("the close said nothing of the replaced file")
            } catch let error as StoreError {
                #expect(error.message.contains("was replaced or removed"), "\(error)")
            }
            #expect(!SQLiteStore.isMarkedClean(path) && !SQLiteStore.isMarkedChecked(path))
            let reopened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(reopened.openCheck == .quickCheck, "the restored file is checked at the next open")
            #expect(try await reopened.boards().first?.seq == 5)
            try await reopened.close()
        }
    }

    @Test("a run that stopped without closing leaves a mark each checkpoint renews; the next open trusts it and recovers the log")
    func crashedRun() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main")
            // Left open to the end: its files are what a kill -9 leaves at this moment.
            let (crashed, path) = try await Self.openCheckpointingEarly(directory, driver)
            let sizeAfterOpen = Self.size(path)
            for round in 0..<40 {
                try await crashed.append(driver.workload(20, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
                // Either no checkpoint wrote the file, or the one that did stamped the mark again (the checkpoints
                // run beside the writer: this waits for the one the commit asked for).
                crashed.checkpoints.idle()
                #expect(SQLiteStore.isMarkedChecked(path), "after commit \(round)")
            }
            #expect(Self.size(path) > sizeAfterOpen, "no checkpoint wrote the main file (\(Self.size(path)) bytes)")
            #expect(SQLiteStore.isMarkedChecked(path), "the last checkpoint did not renew the mark")
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

    /// Opens a new store in `directory` that checkpoints at 16 pages of log (so a few commits make it write the
    /// file), with `driver`'s board created; returns it and its file's path.
    static func openCheckpointingEarly(_ directory: URL, _ driver: BoardDriver) async throws -> (SQLiteStore, String) {
        var configuration = SQLiteStore.Configuration()
        configuration.checkpointPages = 16
        let store = try await SQLiteStore.open(directory: directory, configuration: configuration, logger: StoreFixtures.logger)
        _ = try await store.createBoard(driver.board)
        return (store, directory.appendingPathComponent(SQLiteStore.fileName).path)
    }

    /// Runs `body` in a temporary directory holding a store left open with a few checkpoints done by its hook: the
    /// files a `kill -9` would leave. `body` gets the directory, the database file's path, the store and its driver.
    static func withCrashedStore(
        _ body: (URL, String, SQLiteStore, inout BoardDriver) async throws -> Void
    ) async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main")
            let (store, path) = try await Self.openCheckpointingEarly(directory, driver)
            for _ in 0..<10 {
                try await store.append(driver.workload(40, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            }
            store.checkpoints.idle()
            #expect(SQLiteStore.isMarkedChecked(path))
            try await body(directory, path, store, &driver)
        }
    }

    @Test("a copy restored in place with its old times and its old mark is checked (the ctime moved)")
    func restoredInPlace() async throws {
        try await Self.withCrashedStore { directory, path, running, driver in
            // A backup of the directory as it is now: bytes, times, log and mark.
            let names = [SQLiteStore.fileName, SQLiteStore.fileName + "-wal", SQLiteStore.fileName + ".checked"]
            var saved: [String: (Data, timespec)] = [:]
            for name in names {
                let file = directory.appendingPathComponent(name).path
                var status = stat()
                #expect(stat(file, &status) == 0)
                saved[name] = (try Data(contentsOf: URL(fileURLWithPath: file)), status.st_mtim)
            }
            try await running.append(driver.workload(200, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            // The append asked for checkpoints, which run beside the writer: wait for them, or one may write into
            // the file after it is restored (a run of this suite beside CheckpointerTests then found the restored
            // file malformed, 2 times in 6).
            running.checkpoints.idle()
            // Restored in place (same inodes, as `cp -a` or `rsync --inplace` do), times and all.
            for name in names {
                let file = directory.appendingPathComponent(name).path
                let (bytes, mtime) = try #require(saved[name])
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: bytes)
                try handle.close()
                var times = [mtime, mtime]
                #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
            }
            #expect(!SQLiteStore.isMarkedChecked(path), "the restored mark matches the restored file")
            let opened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(opened.openCheck == .quickCheck)
        }
    }

    @Test("a mark from another boot is not trusted")
    func anotherBoot() async throws {
        try await Self.withCrashedStore { directory, path, running, _ in
            let mark = SQLiteStore.checkedMarkPath(path)
            let text = try String(contentsOfFile: mark, encoding: .utf8)
            #expect(text.hasPrefix("boot \(SQLiteStore.bootID)\n"))
            try text.replacingOccurrences(of: "boot \(SQLiteStore.bootID)", with: "boot another-boot")
                .write(toFile: mark, atomically: false, encoding: .utf8)
            let opened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(opened.openCheck == .quickCheck)
        }
    }

    @Test("a guest (an admin command while the server runs) writes without touching the owner's mark")
    func guest() async throws {
        try await Self.withCrashedStore { directory, path, owner, _ in
            let mark = try Data(contentsOf: URL(fileURLWithPath: SQLiteStore.checkedMarkPath(path)))

            let guest = try await SQLiteStore.open(
                directory: directory, configuration: SQLiteStore.Configuration(guest: true), logger: StoreFixtures.logger)
            #expect(guest.openCheck == .checkpointMark)
            _ = try await guest.enqueue(.revoke(user: "bob"), now: Timestamp(milliseconds: StoreFixtures.t0))
            try await guest.close()

            #expect(try Data(contentsOf: URL(fileURLWithPath: SQLiteStore.checkedMarkPath(path))) == mark)
            #expect(SQLiteStore.isMarkedChecked(path), "the guest wrote the file or the mark")
            #expect(!FileManager.default.fileExists(atPath: SQLiteStore.cleanMarkPath(path)), "a guest wrote a clean mark")
            let next = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(next.openCheck == .checkpointMark)
            #expect(try await next.pendingCommands(after: 0).count == 1)
        }
    }
}
