import BoardTesting
import Foundation

/// Helpers for the tests of corkd's operator commands.
enum OperatorSupport {
    /// Runs a query on the data directory's store with the `sqlite3` tool (read-only) and returns its output.
    static func sql(_ corkd: CorkdProcess, _ query: String) async throws -> String {
        let result = try await SpawnedProcess.run(
            try SpawnedProcess.tool("sqlite3"), ["-readonly", corkd.storeFile.path, query], timeout: .seconds(10),
            logDirectory: corkd.logDirectory, name: "sqlite3")
        guard result.exit.isSuccess else { throw TestFailure("sqlite3 \(query): \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends `subscribe` for `board` and returns the snapshot, or the error the server answered with.
    static func subscribe(_ probe: WireProbe, _ board: String, req: String = "s") async throws -> [String: Any] {
        try await probe.send(#"{"type":"subscribe","req":"\#(req)","board":"\#(board)"}"#)
        while true {
            guard let reply = try await probe.nextObject() else { throw TestFailure("closed while subscribing to \(board)") }
            switch reply["type"] as? String {
            case "snapshot":
                _ = try await probe.expect(type: "subscribed")
                return reply
            case "error":
                return reply
            default:
                continue
            }
        }
    }

    /// The member ids in a snapshot.
    static func members(_ snapshot: [String: Any]) -> [String] {
        (((snapshot["state"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    /// The one invite URL a successful `corkd invite` printed.
    static func url(_ result: SpawnedProcess.Result) throws -> String {
        guard result.exit.isSuccess else { throw TestFailure("corkd invite: \(result.exit); \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
