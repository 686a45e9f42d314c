import BoardCore
import BoardStore
import Foundation
import Logging

/// A SQLite store in a temporary directory holding one empty board, `main` owned by `owner`, for tests that drive a
/// `BoardActor` without a server. The directory is removed when `body` returns.
func withScratchStore<T>(_ prefix: String, _ body: (SQLiteStore) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let sqlite = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
    _ = try await sqlite.createBoard(Board(id: "main", name: "Main", owner: "owner"))
    do {
        let result = try await body(sqlite)
        try await sqlite.close()
        return result
    } catch {
        try? await sqlite.close()
        throw error
    }
}
