import BoardCore
import BoardStore
import Foundation
import Logging
import Testing
@testable import BoardServer

/// A board `main` on a real SQLite store that counts its reads of changes (``GatedStore/eventReads``), for the tests of
/// derived work that should take a board's changes from its log.
struct CountingBoard {
    let store: GatedStore
    let registry: BoardRegistry
    let board: BoardActor
    let configuration: ServerConfiguration
    /// A directory of its own, removed afterwards.
    let directory: URL
}

/// Runs `body` with a ``CountingBoard`` whose log keeps `historyMax` changes; closes and removes it afterwards.
func withCountingBoard<T: Sendable>(
    historyMax: Int, configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (CountingBoard) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("counting-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
    let store = GatedStore(inner: sqlite, gate: .opened)
    var configuration = ServerConfiguration()
    configuration.limits.historyMax = historyMax
    configure(&configuration)
    let (_, continuation) = AsyncStream.makeStream(of: BoardActor.self)
    let registry = BoardRegistry(
        store: store, configuration: configuration, clock: WallClock(), logger: Logger(label: "test"), started: continuation)
    do {
        let board = try #require(try await registry.create("main", name: "Main", owner: "owner"))
        let result = try await body(
            CountingBoard(store: store, registry: registry, board: board, configuration: configuration, directory: directory))
        continuation.finish()
        try await sqlite.close()
        return result
    } catch {
        continuation.finish()
        try? await sqlite.close()
        throw error
    }
}
