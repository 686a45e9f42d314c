import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// What survives closing and reopening, the connection settings, and backups.
@Suite("SQLiteStore durability")
struct StoreDurabilityTests {
    @Test("the writer runs WAL with synchronous=FULL, foreign keys and the configured busy timeout")
    func pragmas() async throws {
        let configuration = SQLiteStore.Configuration(busyTimeout: .milliseconds(1500))
        try await StoreFixtures.withStore(configuration: configuration) { store, _ in
            let pragmas = try await store.writerPragmas()
            #expect(pragmas.journal == "wal")
            #expect(pragmas.synchronous == 2)
            #expect(pragmas.foreignKeys == 1)
            #expect(pragmas.busy == 1500)
        }
    }

    @Test("everything written is there after closing and opening again")
    func reopen() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main", name: "Main")
            let now = Timestamp(milliseconds: StoreFixtures.t0)
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            let record = try await store.createBoard(driver.board)
            let events = driver.workload(25, clientID: "cork-a", firstMut: 1)
            let snapshot = driver.board
            let more = driver.workload(28)
            try await store.append(events, snapshots: [snapshot])
            try await store.append(more, snapshots: [])
            _ = try await store.ensureUser("alice", displayName: "Alice")
            let token = try await store.issueToken(for: "alice", expiresAt: nil, now: now)
            let command = try await store.enqueue(.revoke(user: "bob"), now: now)
            try await store.close()

            let reopened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(
                try await reopened.boards() == [
                    BoardRecord(id: "main", name: "Main", seq: driver.board.seq, epoch: record.epoch)
                ])
            let loaded = try #require(try await reopened.load("main"))
            #expect(loaded.snapshot == snapshot && loaded.epoch == record.epoch)
            #expect(loaded.tail == more)
            #expect(try loaded.replayed() == driver.board)
            #expect(try await reopened.events("main", from: 1, to: 25, limit: 100) == events)
            #expect(try await reopened.lastMutation(user: "alice", clientID: "cork-a", board: "main") == 25)
            #expect(try await reopened.authenticate(token: token, now: now)?.user == "alice")
            #expect(try await reopened.pendingCommands(after: 0).map(\.id) == [command])
            #expect(try await reopened.ensureUser("alice", displayName: "Alice") == false)
            // And it keeps appending where it left off.
            try await reopened.append(driver.chat("after reopen").map { [$0] } ?? [], snapshots: [])
            #expect(try await reopened.boards().first?.seq == driver.board.seq)
            #expect(try await reopened.quickCheck() == true)
            try await reopened.close()
        }
    }

    @Test("after a crash (files copied while open, WAL not checkpointed) every committed change is there")
    func crashCopy() async throws {
        try await StoreFixtures.withTemporaryDirectory { root in
            let live = root.appendingPathComponent("live")
            let crashed = root.appendingPathComponent("crashed")
            var driver = BoardDriver("main")
            let store = try await SQLiteStore.open(directory: live, logger: StoreFixtures.logger)
            _ = try await store.createBoard(driver.board)
            let events = driver.workload(50, clientID: "cork-a")
            try await store.append(events, snapshots: [])
            #expect(StoreFixtures.bytes(live.appendingPathComponent(SQLiteStore.fileName + "-wal")).count > 0)
            // What a kill -9 leaves: the main file, the WAL and the shared memory, as they are right now.
            try FileManager.default.createDirectory(at: crashed, withIntermediateDirectories: true)
            for (source, target) in zip(
                StoreFixtures.databaseFiles(in: live), StoreFixtures.databaseFiles(in: crashed))
            {
                try FileManager.default.copyItem(at: source, to: target)
            }
            try await store.close()

            let recovered = try await SQLiteStore.open(directory: crashed, logger: StoreFixtures.logger)
            #expect(try await recovered.events("main", from: 1, to: 100, limit: 100) == events)
            #expect(try await recovered.load("main")?.replayed() == driver.board)
            #expect(try await recovered.lastMutation(user: "alice", clientID: "cork-a", board: "main") == 50)
            try await recovered.close()
        }
    }

    @Test("a new data directory and database file are private to the user")
    func filePermissions() async throws {
        try await StoreFixtures.withTemporaryDirectory { parent in
            let directory = parent.appendingPathComponent("data/nested", isDirectory: true)
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            try await store.close()
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(SQLiteStore.fileName).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let dir = try FileManager.default.attributesOfItem(atPath: directory.path)
            #expect((dir[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        }
    }

    @Test("a backup restores the data under new epochs, once per restore")
    func backupAndRestore() async throws {
        try await StoreFixtures.withTemporaryDirectory { root in
            let live = root.appendingPathComponent("live")
            let backupFile = root.appendingPathComponent("backup.sqlite")
            var driver = BoardDriver("main")
            let store = try await SQLiteStore.open(directory: live, logger: StoreFixtures.logger)
            let record = try await store.createBoard(driver.board)
            try await store.append(driver.workload(10), snapshots: [])
            try await store.backup(to: backupFile)
            // Writes after the backup are not in it.
            try await store.append(driver.chat("after backup").map { [$0] } ?? [], snapshots: [])
            let error = await #expect(throws: StoreError.self) { try await store.backup(to: backupFile) }
            #expect(error?.code == .duplicate)
            #expect(try await store.boards().first?.epoch == record.epoch)
            try await store.close()
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["backup.sqlite", "live"])

            var epochs: Set<String> = [record.epoch]
            for attempt in 1...2 {
                let restored = root.appendingPathComponent("restored-\(attempt)")
                try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    at: backupFile, to: restored.appendingPathComponent(SQLiteStore.fileName))
                let reopened = try await SQLiteStore.open(directory: restored, logger: StoreFixtures.logger)
                let boards = try await reopened.boards()
                #expect(boards.map(\.seq) == [10])
                let epoch = try #require(boards.first?.epoch)
                #expect(!epochs.contains(epoch))
                epochs.insert(epoch)
                try await reopened.close()
                // Opening the restored file again keeps its (new) epoch.
                let again = try await SQLiteStore.open(directory: restored, logger: StoreFixtures.logger)
                #expect(try await again.boards().first?.epoch == epoch)
                #expect(try await again.events("main", from: 1, to: 100, limit: 100).count == 10)
                try await again.close()
            }
        }
    }
}
