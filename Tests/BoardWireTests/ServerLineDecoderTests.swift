import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// The one-pass decode of server lines (`LineCoder.decodeServer`: the scan records a tape, `TapeDecoder` reads it)
/// against the reference (`decodeServerReference`, Foundation's `JSONDecoder`): the same message for every line the
/// reference decodes, without falling back; nothing for a line it refuses; and the entry point answers exactly as the
/// reference, errors included.
@Suite struct ServerLineDecoderTests {
    let coder = LineCoder()

    @discardableResult
    func agree(_ line: [UInt8], _ label: @autoclosure () -> String = "", fallsBack: Bool = false) -> Bool {
        let reference = Result { () throws(WireError) -> ServerMessage in try coder.decodeServerReference(line) }
        let onePass = line.withUnsafeBufferPointer { LineCoder.decodeServerInOnePass($0) }
        let entry = Result { () throws(WireError) -> ServerMessage in try coder.decodeServer(line) }
        let text = String(decoding: line.prefix(300), as: UTF8.self)
        let read = fieldByField(line)
        switch reference {
        case .success(let message):
            // A line the scan refuses by design (a key twice) is left to the reference: no message, not another.
            #expect(onePass == (fallsBack ? nil : message), "one pass differs on \(label()) \(text)")
            #expect(read == nil || read == message, "field by field differs on \(label()) \(text)")
        case .failure(let error):
            #expect(onePass == nil, "one pass decoded a line the reference refuses (\(error)): \(label()) \(text)")
            #expect(read == nil, "field by field decoded a line the reference refuses (\(error)): \(label()) \(text)")
        }
        #expect(entry == reference, "entry point differs on \(label()) \(text)")
        return (try? reference.get()) != nil
    }

    /// The delta of a line read field by field (`TapeReader.serverMessage`), or nil when the reader leaves it to the
    /// general path.
    func fieldByField(_ line: [UInt8]) -> ServerMessage? {
        line.withUnsafeBufferPointer { buffer in
            var scanner = JSONPreScan.Scanner(bytes: buffer, limits: LineCoder.serverScanLimits)
            scanner.tape = JSONTape()
            guard scanner.run() == nil, let tape = scanner.tape else { return nil }
            return TapeReader(bytes: buffer, nodes: tape.nodes, limits: LineCoder.serverScanLimits).serverMessage()
        }
    }

    /// A delta of every op kind, with an activity whose changes hold every kind of JSON value (escapes and non-ASCII
    /// text, nested arrays and objects, null), is read field by field to the message the reference reads.
    @Test func aDeltaOfEveryOpKindIsReadFieldByField() throws {
        var changes: [String: FieldChange] = [
            "title": FieldChange(old: .string("Fix \"login\" ☃\n\ttab"), new: .string("é")),
            "labels": FieldChange(old: .array([]), new: .array([.string("bug"), .string("ui")])),
            "closed": FieldChange(old: .bool(false), new: .bool(true)),
            "due": FieldChange(old: .null, new: .string("2026-03-01")),
            "number": FieldChange(old: .null, new: .int(9_007_199_254_740_991)),
        ]
        changes["recur"] = FieldChange(old: .null, new: .object(["every": .string("week"), "days": .array([.string("mon")]), "k\"ey": .null]))
        for (index, op) in LineWriterTests.sampleOps.enumerated() {
            for (clientID, mut, undoOf) in [(ClientID?("tab-1"), UInt64?(UInt64(index + 1)), UInt64?.none), (nil, nil, UInt64?(3))] {
                let activity = Activity(
                    seq: 40, at: Timestamp(milliseconds: 1_767_261_600_000), actor: "alice", kind: op.kind, card: op.card,
                    column: "doing", text: index % 2 == 0 ? "said \u{1F4A1}" : nil, changes: changes,
                    warning: index % 3 == 0 ? "over the WIP limit" : nil, undoOf: undoOf)
                let line = LineWriter.deltaLine(
                    board: "main", seq: 40, at: activity.at, actor: "alice", clientID: clientID, mut: mut, op: op,
                    activity: activity)
                let reference = try coder.decodeServerReference(line)
                #expect(fieldByField(line) == reference, "\(op.kind): \(String(decoding: line, as: UTF8.self))")
                #expect(agree(line, op.kind))
            }
        }
    }

    @Test func everyServerExampleOfProtocolMdAndEachOfItsTruncations() throws {
        let doc = try ProtocolDoc.load()
        let examples = doc.exampleLines.filter { $0.direction == .server }
        #expect(examples.count > 40)
        for example in examples {
            let line = Array(example.text.utf8)
            #expect(agree(line, "Protocol.md:\(example.number)"), "Protocol.md:\(example.number) must decode")
            #expect(agree(line + [0x0A]) && agree(line + [0x0D, 0x0A]), "with its terminator")
            for cut in stride(from: 0, to: line.count, by: max(1, line.count / 40)) {
                agree(Array(line.prefix(cut)), "Protocol.md:\(example.number) cut at \(cut)")
            }
        }
    }

    /// A snapshot of a board of 500 cards (long descriptions, escapes, non-ASCII) and the deltas that built it: more
    /// keys and longer strings than a client line may have.
    @Test func aLargeSnapshotAndItsDeltas() throws {
        var board = Board(id: "main", name: "Big \"board\" é", owner: "alice")
        var lines: [[UInt8]] = []
        for n in 1...500 {
            let op = Op.addCard(
                AddCard(
                    card: CardID("c\(n)"), column: "todo", title: "Card \(n) — \u{1F4A1} \"q\"",
                    description: String(repeating: "line \(n)\\n\t", count: n % 50), due: n % 3 == 0 ? Day(year: 2026, month: 3, day: 1 + n % 28) : nil))
            let context = ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1_767_261_600_000 + Int64(n)), seq: UInt64(n))
            guard case .success(let change) = board.apply(op, context: context) else { Issue.record("op \(n)"); return }
            lines.append(LineWriter.deltaLine(
                board: "main", seq: UInt64(n), at: context.now, actor: "alice", clientID: "c", mut: UInt64(n), op: op,
                activity: change.activity))
        }
        let snapshot = coder.encode(ServerMessage.snapshot(ServerMessage.Snapshot(req: 2, board: "main", seq: board.seq, epoch: "e1", reason: .initial, state: board)))
        #expect(agree(snapshot, "snapshot"))
        for (index, line) in lines.enumerated() {
            #expect(agree(line, "delta \(index + 1)"))
            #expect(fieldByField(line) != nil, "a delta is read field by field: delta \(index + 1)")
        }
    }

    @Test func linesTheReferenceRefusesAreRefusedWithTheSameError() {
        for text in [
            "", "{", "[]", "null", #"{"type":"nope"}"#, #"{"type":"ack","board":"main","mut":1}"#,
            #"{"type":"ack","board":"main","mut":1,"seq":1.5}"#, #"{"type":"ack","board":"main","mut":-1,"seq":2}"#,
            "\u{FEFF}{\"type\":\"ping\"}",
        ] {
            agree(Array(text.utf8), text)
        }
        agree(Array(#"{"type":"ping","type":"ping"}"#.utf8), "a key twice", fallsBack: true)
        agree([0x7B, 0xFF, 0x7D], "invalid UTF-8")
    }
}
