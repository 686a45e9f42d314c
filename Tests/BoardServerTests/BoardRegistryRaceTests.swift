import BoardCore
import BoardStore
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import BoardServer

/// A board is served by one actor however its loads interleave (tier 3: no sockets; a store that lets the test act
/// in the middle of a call).
@Suite(.timeLimit(.minutes(2))) struct BoardRegistryRaceTests {
    /// With a shared store, a subscriber asking for a board while this node unarchives it loads the board (the store
    /// already says unarchived). The unarchive then loaded it again and served a second actor in the first one's
    /// place: the subscriber was on an actor no longer in the registry, and the shutdown never stopped that actor's
    /// commit loop (the server hung after "every board stopped").
    @Test func aSubscriberDuringAnUnarchiveAndTheUnarchiveServeOneActor() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        let hook = StoreHook()
        let store = GatedStore(inner: sqlite, gate: .opened, afterSetArchived: hook)
        let (started, continuation) = AsyncStream.makeStream(of: BoardActor.self)
        let registry = BoardRegistry(
            store: store, shared: RecordsOnlyShared(inner: sqlite), configuration: ServerConfiguration(),
            clock: WallClock(), logger: Logger(label: "test"), started: continuation)
        let servedActors = NIOLockedValueBox<[BoardActor]>([])
        try await withThrowingDiscardingTaskGroup { tasks in
            // The commit loops, as the server runs them: each ends after a stop.
            tasks.addTask {
                await withDiscardingTaskGroup { loops in
                    for await actor in started {
                        servedActors.withLockedValue { $0.append(actor) }
                        loops.addTask { await actor.run() }
                    }
                    // The stream ended (stopAll): an actor the registry no longer knows is stopped here, or the test
                    // would hang as the server did.
                    for actor in servedActors.withLockedValue({ $0 }) { actor.stop(final: true) }
                }
            }
            _ = try #require(try await registry.create("b", name: "B", owner: "owner"))
            #expect(await registry.archive("b") == nil)
            let asked = NIOLockedValueBox<BoardActor?>(nil)
            hook.set { board, archived in
                guard board == "b", !archived else { return }
                let actor = await registry.board("b")
                asked.withLockedValue { $0 = actor }
            }
            #expect(await registry.unarchive("b") == nil)
            let subscriberActor = try #require(asked.withLockedValue { $0 }, "the subscriber found no board during the unarchive")
            let servedNow = try #require(await registry.loaded("b"))
            #expect(subscriberActor === servedNow, "the subscriber is on an actor the registry no longer serves")
            await registry.stopAll()
        }
        // The created one, then one after the unarchive.
        #expect(servedActors.withLockedValue { $0.count } == 2, "actors started: \(servedActors.withLockedValue { $0.count })")
    }
}

