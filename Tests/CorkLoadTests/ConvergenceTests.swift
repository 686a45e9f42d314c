import BoardCore
import BoardWire
import Foundation
import Testing

@testable import cork_load

/// `Convergence.judge` on a board built by the real reducer from the ops cork-load sends.
@Suite struct ConvergenceTests {
    let coder = LineCoder()

    /// The server's side: the board after `count` ops, and the delta lines a subscriber at seq 0 received.
    func run(count: Int) throws -> (board: Board, start: Board, lines: [[UInt8]]) {
        var source = OpSource(boards: ["b"], mix: .standard, run: "t", publisher: 0, cardsPerBoard: 8)
        var board = Board(id: "b", name: "B", owner: "pub0")
        let start = board
        var lines: [[UInt8]] = []
        for mut in UInt64(1)...UInt64(count) {
            let bytes = Array(source.next(mut: mut).line.readableBytesView.dropLast())
            guard case .op(let mutation) = try coder.decodeClient(bytes), case .op(let op) = mutation.op else { continue }
            let seq = UInt64(lines.count + 1)
            let now = Timestamp(milliseconds: 1_700_000_000_000 + Int64(seq))
            guard case .success(let result) = board.apply(op, context: ApplyContext(actor: "pub0", role: .owner, now: now, seq: seq))
            else {
                source.answered(mut: mut, accepted: false)
                continue
            }
            source.answered(mut: mut, accepted: true)
            board.seq = seq
            let delta = ServerMessage.Delta(
                board: "b", seq: seq, at: now, actor: "pub0", clientID: "load-t-p0", mut: mut, op: op, activity: result.activity)
            lines.append(coder.encode(ServerMessage.delta(delta)))
        }
        return (board, start, lines)
    }

    func log(_ start: Board, _ lines: [[UInt8]]) -> ReferenceLog {
        var log = ReferenceLog(board: 0, snapshot: start, subscribedSeq: 0)
        for (index, line) in lines.enumerated() {
            log.bytes += line
            log.ends.append(log.bytes.count)
            log.seqs.append(UInt64(index + 1))
        }
        return log
    }

    func stream(_ lines: [[UInt8]], from: Int = 0) -> StreamRecord {
        var hash = StreamHash()
        for line in lines[from...] { line.withUnsafeBytes { hash.add($0) } }
        return StreamRecord(board: 0, subscribedSeq: UInt64(from), lastSeq: UInt64(lines.count), hash: hash)
    }

    @Test func aFaithfulReplicaConverges() throws {
        let (board, start, lines) = try run(count: 120)
        let server = Convergence.ServerBoard(seq: UInt64(lines.count), hash: board.contentHash, cards: board.cards.count)
        let verdict = Convergence.judge(
            board: "b", server: server, reference: log(start, lines), streams: [stream(lines), stream(lines), stream(lines, from: 30)])
        #expect(verdict.problems == [])
        #expect(verdict.converged)
        #expect(verdict.deltasReplayed == lines.count)
        #expect(verdict.subscribersMatching == 3)
    }

    @Test func aMissingDeltaOrAWrongHashIsCaught() throws {
        let (board, start, lines) = try run(count: 60)
        let server = Convergence.ServerBoard(seq: UInt64(lines.count), hash: board.contentHash, cards: board.cards.count)
        var shortened = lines
        shortened.removeLast()
        let short = Convergence.judge(board: "b", server: server, reference: log(start, shortened), streams: [])
        #expect(!short.converged)
        #expect(short.problems.contains { $0.contains("ended at seq") })

        let wrongHash = Convergence.ServerBoard(seq: server.seq, hash: String(repeating: "0", count: 64), cards: 0)
        #expect(!Convergence.judge(board: "b", server: wrongHash, reference: log(start, lines), streams: []).converged)

        // A subscriber whose stream differs by one delta (here: it lost the last one) does not match.
        var lossy = stream(lines)
        lossy.hash = stream(shortened).hash
        let verdict = Convergence.judge(board: "b", server: server, reference: log(start, lines), streams: [stream(lines), lossy])
        #expect(verdict.subscribersMatching == 1)
        #expect(!verdict.converged)
    }

    /// A subscriber that lost its connection (a node killed under it) stops early: its deltas up to there are
    /// compared, and a faithful one makes the board "not checked", not diverged. Before, it was counted a divergence.
    @Test func aReplicaThatLostItsConnectionIsJudgedUpToWhereItStopped() throws {
        let (board, start, lines) = try run(count: 60)
        let server = Convergence.ServerBoard(seq: UInt64(lines.count), hash: board.contentHash, cards: board.cards.count)
        var cut = stream(Array(lines.prefix(40)))
        cut.lostConnection = true
        let verdict = Convergence.judge(board: "b", server: server, reference: log(start, lines), streams: [stream(lines), cut])
        #expect(!verdict.converged)
        #expect(verdict.unchecked, "\(verdict.problems)")
        #expect(verdict.subscribersMatching == 1)
        // Cut short without a lost connection, or with deltas that differ, is a divergence.
        var quiet = cut
        quiet.lostConnection = false
        #expect(!Convergence.judge(board: "b", server: server, reference: log(start, lines), streams: [quiet]).unchecked)
        var wrong = cut
        wrong.hash = stream(Array(lines.prefix(39))).hash
        #expect(!Convergence.judge(board: "b", server: server, reference: log(start, lines), streams: [wrong]).unchecked)
        // The reference replica itself cut short: the board is not checked.
        var reference = log(start, Array(lines.prefix(30)))
        reference.lostConnection = true
        let unreferenced = Convergence.judge(board: "b", server: server, reference: reference, streams: [stream(lines)])
        #expect(unreferenced.unchecked && !unreferenced.converged, "\(unreferenced.problems)")
    }

    /// A board whose reference replica never connected, or that the server would not show at the end (archived
    /// during the run), is not checked: nothing is compared, so neither "converged" nor "diverged".
    @Test func aBoardWithNothingToCompareIsNotChecked() throws {
        let (board, start, lines) = try run(count: 20)
        let server = Convergence.ServerBoard(seq: UInt64(lines.count), hash: board.contentHash, cards: board.cards.count)
        let unreferenced = Convergence.judge(board: "b", server: server, reference: nil, streams: [stream(lines)])
        #expect(unreferenced.unchecked && !unreferenced.converged, "\(unreferenced.problems)")
        let noneConnected = Convergence.judge(board: "b", server: server, reference: nil, streams: [], expected: 3)
        #expect(noneConnected.unchecked && !noneConnected.converged, "\(noneConnected.problems)")
        var archived = server
        archived.refused = "not_found: no board b"
        let refused = Convergence.judge(board: "b", server: archived, reference: log(start, lines), streams: [stream(lines)])
        #expect(refused.unchecked && refused.problems.first?.contains("not_found: no board b") == true, "\(refused.problems)")
    }

    @Test func aTruncatedReferenceLogIsNotCalledConverged() throws {
        let (board, start, lines) = try run(count: 10)
        var reference = log(start, lines)
        reference.truncated = true
        let server = Convergence.ServerBoard(seq: UInt64(lines.count), hash: board.contentHash, cards: board.cards.count)
        #expect(!Convergence.judge(board: "b", server: server, reference: reference, streams: []).converged)
    }
}
