import BoardCore
import BoardStore
import BoardTesting
import Foundation
import Logging
import Testing

/// How long `corkd` takes from exec to its listening line with a big store. A measurement, run
/// by hand (it builds a store of `CORK_RESTART_EVENTS` events over `CORK_RESTART_BOARDS` boards through the store
/// API, a snapshot every 1,000 changes as corkd stores them, then starts corkd three times):
///
///     CORK_RESTART_EVENTS=1000000 CORK_RESTART_BOARDS=100 swift test --skip-build --filter RestartTimeTests
///
/// It prints the start times; with `CORK_RESTART_MAX_MS` it also fails when the fastest start is slower;
/// `CORK_RESTART_KEEP=DIR` keeps a copy of the data directory (to time another corkd on it).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CORK_RESTART_EVENTS"] != nil), .startsProcesses(within: .minutes(60)))
struct RestartTimeTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test func startTimeWithABigStore() async throws {
        let events = Int(Self.environment["CORK_RESTART_EVENTS"] ?? "") ?? 1_000_000
        let boards = max(1, Int(Self.environment["CORK_RESTART_BOARDS"] ?? "") ?? 100)
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        _ = try await corkd.terminate()
        let filled = ContinuousClock.now
        try await Self.fill(corkd.dataDirectory, boards: boards, eventsPerBoard: events / boards)
        try Unprivileged.handOver(corkd.root)
        let size = (try? FileManager.default.attributesOfItem(atPath: corkd.storeFile.path)[.size] as? Int) ?? 0
        print("restart: filled \(events / boards * boards) events on \(boards) boards (\(size / 1_048_576) MiB) in \(ContinuousClock.now - filled)")
        var times: [Duration] = []
        for _ in 0..<3 {
            let started = ContinuousClock.now
            try await corkd.start(timeout: .seconds(600))
            times.append(ContinuousClock.now - started)
            _ = try await corkd.terminate(timeout: .seconds(60))
        }
        print("restart: corkd start to listening: \(times.map { "\($0)" }.joined(separator: ", "))")
        if let keep = Self.environment["CORK_RESTART_KEEP"] {
            try FileManager.default.copyItem(at: corkd.dataDirectory, to: URL(fileURLWithPath: keep))
        }
        if let max = Self.environment["CORK_RESTART_MAX_MS"].flatMap(Int.init) {
            let fastest = try #require(times.min())
            #expect(fastest <= .milliseconds(max), "corkd took \(fastest) to start with \(events) events")
        }
    }

    /// Appends chat changes to `boards` new boards through the store API, in batches of 1,000 with a snapshot after
    /// each full batch (corkd's default `snapshotInterval`), so each board ends with a tail of
    /// `eventsPerBoard % 1000` changes after its newest snapshot.
    static func fill(_ directory: URL, boards: Int, eventsPerBoard: Int) async throws {
        var logger = Logger(label: "restart-fill")
        logger.logLevel = .error
        let store = try await SQLiteStore.open(directory: directory, logger: logger)
        let text = String(repeating: "restart ", count: 12)
        for b in 0..<boards {
            var board = Board(id: BoardID("restart-\(b)"), name: "restart \(b)", owner: "owner")
            _ = try await store.createBoard(board)
            var batch: [StoredEvent] = []
            for n in 1...max(1, eventsPerBoard) {
                let at = Timestamp(milliseconds: 1_795_000_000_000 + Int64(n))
                let context = ApplyContext(actor: "owner", role: .owner, now: at, seq: board.seq + 1)
                let op = Op.chat(text: "\(text)\(n)")
                guard case .success(let change) = board.apply(op, context: context) else {
                    throw TestFailure("chat \(n) was refused")
                }
                batch.append(
                    StoredEvent(
                        board: board.id, seq: context.seq, at: at, actor: "owner", clientID: "restart-\(b)", mut: UInt64(n),
                        op: op, activity: change.activity, inverse: change.inverse))
                if batch.count == 1_000 || n == eventsPerBoard {
                    try await store.append(batch, snapshots: batch.count == 1_000 ? [board] : [])
                    batch = []
                }
            }
        }
    }
}
