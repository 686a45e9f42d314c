/// Runs `body` with a connected ``BoardClient``; when `body` returns or throws, the client says `bye`, closes the
/// connection and stops (STYLE.md 11: scoped resources, no stray tasks).
///
/// The client starts connecting at once; `body` may use it immediately (ops queue until the session is up). Use
/// ``BoardClient/ready(timeout:)`` to wait for the board, and ``BoardClient/events`` to follow changes.
public func withClient<Result: Sendable>(
    _ configuration: ClientConfiguration, _ body: (BoardClient) async throws -> Result
) async throws -> Result {
    let client = try BoardClient(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.runConnection() }
        group.addTask { await client.runTimers() }
        group.addTask { await client.runJournal() }
        do {
            let result = try await body(client)
            await client.shutdown()
            group.cancelAll()
            try await group.waitForAll()
            return result
        } catch {
            await client.shutdown()
            group.cancelAll()
            try? await group.waitForAll()
            throw error
        }
    }
}
