import BoardCore
import Foundation
import Testing
@testable import BoardStore

/// The store checkpoints beside its writer (a checkpoint on the writer's thread would hold every board's next
/// commit for tens of milliseconds), and the log still starts over.
@Suite(.timeLimit(.minutes(1))) struct CheckpointerTests {
    @Test func aCommitPastTheThresholdDoesNotWaitForTheCheckpointAndTheLogStartsOverAfter() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            var driver = BoardDriver("main")
            let (store, path) = try await StoreOpenCheckTests.openCheckpointingEarly(directory, driver)
            let size = { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
            // What wrote the file is counted by the marker (every checkpoint that copied frames); the file's size
            // is no proof either way (pages already in the file are rewritten in place: a loaded CI run saw it
            // unchanged after a checkpoint).
            let written = { store.checkpoints.checkpointsThatWrote }
            // The open and the board's creation may have asked for a checkpoint already: wait for it, and when its
            // pass ran, let the writer finish that log (it does so at its next commit past the threshold, by
            // design), so that from here on only the checkpointer writes the file. A CI run measured the file
            // before such a pass had written it, then found it grown.
            store.checkpoints.idle()
            while store.checkpoints.writerFinishesNext {
                try await store.append(driver.workload(20, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            }
            // And start the log over (the commit after a finished log does), so that the commits below, not what
            // is left of this log, reach the threshold: left long, the loop below committed nothing and no
            // checkpoint was asked for (4 runs in 12 beside two busy loops).
            while store.checkpoints.logFrames >= 16 {
                try await store.append(driver.workload(1, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            }
            let before = written()
            let sizeBefore = size()
            // The checkpointer is held: the commits that ask for a checkpoint return all the same, and nothing has
            // written the main file when they do.
            store.checkpoints.pause()
            while store.checkpoints.logFrames < 16 {
                try await store.append(driver.workload(20, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            }
            #expect(written() == before, "the writer checkpointed itself")
            #expect(size() == sizeBefore, "something wrote the file while the checkpointer was held")
            store.checkpoints.resume()
            store.checkpoints.idle()
            // The next commit finishes the log on the writer (and checkpoints it all itself if the checkpointer's
            // pass could not run: a loaded CI run once saw the file untouched after it); the one after starts the
            // log over.
            let long = store.checkpoints.logFrames
            try await store.append(driver.workload(1, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            #expect(written() > before, "no checkpoint wrote the file")
            try await store.append(driver.workload(1, clientID: "cork-a", firstMut: driver.board.seq + 1), snapshots: [])
            #expect(store.checkpoints.logFrames < long, "the log did not start over (\(store.checkpoints.logFrames) frames)")
            store.checkpoints.idle()
            #expect(SQLiteStore.isMarkedChecked(path), "no checkpoint renewed the mark")
            try await store.close()
            let reopened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(reopened.openCheck == .cleanMark)
            #expect(try await reopened.boards().first?.seq == driver.board.seq)
            try await reopened.close()
        }
    }
}
