import BoardTesting
import Foundation
import Testing

/// The real `cork-load --spawn` (which starts the real corkd) end to end, small and short.
@Suite struct CorkLoadRunTests {
    static let executable = CorkdProcess.packageRoot.appendingPathComponent(".build/debug/cork-load")

    func runLoad(_ arguments: [String]) async throws -> (exit: ProcessExit, report: [String: Any], stderr: String) {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestFailure("cork-load is missing at \(Self.executable.path); run `swift build --build-tests` first")
        }
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        // cork-load, and the corkd it spawns, run as nobody when the tests run as root.
        let result = try await SpawnedProcess.run(
            Self.executable, arguments, timeout: .seconds(120), logDirectory: logs, name: "cork-load", unprivileged: true)
        let object = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any]
        return (result.exit, object ?? [:], result.standardError)
    }

    @Test func twoBoardsConvergeWithFanOutMeasured() async throws {
        let run = try await runLoad([
            "--spawn", "--boards", "2", "--subscribers-per-board", "3", "--publishers", "2", "--window", "4",
            "--duration", "2", "--warmup", "1", "--cards-per-board", "10", "--json",
        ])
        #expect(run.exit.isSuccess, "\(run.stderr.suffix(2000))")
        #expect(run.report["ok"] as? Bool == true)
        let convergence = run.report["convergence"] as? [String: Any]
        #expect(convergence?["converged"] as? Bool == true)
        let boards = convergence?["boards"] as? [[String: Any]] ?? []
        #expect(boards.count == 2)
        for board in boards {
            #expect(board["subscribers_matching"] as? Int == 3)
            #expect((board["deltas_replayed"] as? Int ?? 0) > 0)
            #expect(board["server_hash"] as? String == board["replayed_hash"] as? String)
        }
        #expect((run.report["ops_acked"] as? Int ?? 0) > 0)
        let fanout = run.report["fanout_ms"] as? [String: Any]
        let ack = run.report["ack_ms"] as? [String: Any]
        #expect((fanout?["p50"] as? Double ?? 0) > 0)
        #expect((ack?["p50"] as? Double ?? 0) > 0)
        let sent = (run.report["sent"] as? [String: Int] ?? [:]).values.reduce(0, +)
        #expect(sent > 0)
        #expect((run.report["seq"] as? [String: Any])?["contiguous"] as? Bool == true)
        #expect(run.stderr.contains("measure"))
    }

    @Test func badArgumentsAreAUsageError() async throws {
        let run = try await runLoad(["--spawn", "--url", "cork://x"])
        #expect(run.exit.reason == .exit && run.exit.status == 64, "\(run.exit)")
    }
}
