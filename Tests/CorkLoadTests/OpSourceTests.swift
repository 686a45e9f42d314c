import BoardCore
import BoardWire
import NIOCore
import Testing

@testable import cork_load

@Suite struct OpMixTests {
    @Test func parsesWeightsAndRejectsNonsense() throws {
        let mix = try OpMix(parsing: "move=2, chat=1")
        #expect(mix.description == "move=2,chat=1")
        #expect(throws: LoadError.self) { try OpMix(parsing: "move=x") }
        #expect(throws: LoadError.self) { try OpMix(parsing: "jump=3") }
        #expect(throws: LoadError.self) { try OpMix(parsing: "move=0,chat=0") }
    }

    @Test func spreadsKindsInProportion() throws {
        let mix = try OpMix(parsing: "move=50,edit=30,add=15,chat=5")
        var sent = [0, 0, 0, 0]
        for _ in 0..<1_000 {
            let kind = mix.next(after: sent)
            sent[OpMix.Kind.allCases.firstIndex(of: kind)!] += 1
        }
        #expect(sent == [500, 300, 150, 50])
        // Evenly spread too: no kind runs far ahead of its share at any point.
        var partial = [0, 0, 0, 0]
        for step in 1...40 {
            partial[OpMix.Kind.allCases.firstIndex(of: mix.next(after: partial))!] += 1
            #expect(abs(Double(partial[0]) - Double(step) * 0.5) <= 1)
        }
    }
}

@Suite struct OpSourceTests {
    let coder = LineCoder()

    func decode(_ op: OpSource.Op) throws -> (board: String, op: Op) {
        let bytes = Array(op.line.readableBytesView.dropLast())
        guard case .op(let mutation) = try coder.decodeClient(bytes), case .op(let decoded) = mutation.op else {
            throw LoadError("test", "not an op line")
        }
        return (mutation.board.rawValue, decoded)
    }

    @Test func everyLineIsAValidOpOfAboutTwoHundredBytesAndBoardsTakeTurns() throws {
        var source = OpSource(boards: ["a", "b", "c"], mix: .standard, run: "r1", publisher: 3, cardsPerBoard: 10)
        for mut in UInt64(1)...300 {
            let op = source.next(mut: mut)
            #expect(op.line.readableBytes < 300)
            #expect(op.line.readableBytesView.last == 0x0A)
            let decoded = try decode(op)
            #expect(decoded.board == ["a", "b", "c"][Int(mut - 1) % 3])
            #expect(op.board == Int(mut - 1) % 3)
        }
    }

    /// Each board gets the mix asked for, whatever the number of boards: with the kinds picked for the publisher as a
    /// whole, a mix whose pattern repeats every 20 ops sent board 3 of 5 nothing but moves and edits (one card, never
    /// an add after the first), and board 1 all the adds.
    @Test(arguments: [2, 4, 5, 10])
    func everyBoardGetsTheMix(boards count: Int) throws {
        let boards = (0..<count).map { "b\($0)" }
        var source = OpSource(boards: boards, mix: .standard, run: "r", publisher: 0, cardsPerBoard: 1_000)
        var kinds = [[Int]](repeating: [0, 0, 0, 0], count: count)
        for mut in UInt64(1)...UInt64(200 * count) {
            let op = source.next(mut: mut)
            kinds[op.board][OpMix.Kind.allCases.firstIndex(of: op.kind)!] += 1
            source.answered(mut: mut, accepted: true)
        }
        for (board, counts) in kinds.enumerated() {
            // 200 ops each: 100 moves, 60 edits, 30 adds, 10 chat lines (a move or edit with no card yet is an add).
            #expect(abs(counts[2] - 30) <= 2 && abs(counts[3] - 10) <= 1, "board \(board): \(counts)")
            #expect(abs(counts[0] - 100) <= 2 && abs(counts[1] - 60) <= 2, "board \(board): \(counts)")
        }
    }

    @Test func theOpsApplyToABoardAndAddsTurnIntoPurgesAtTheCap() throws {
        var source = OpSource(boards: ["a"], mix: try OpMix(parsing: "move=1,add=1"), run: "r", publisher: 0, cardsPerBoard: 5)
        var board = Board(id: "a", name: "A", owner: "pub0")
        var purges = 0
        for mut in UInt64(1)...200 {
            let op = source.next(mut: mut)
            if op.purges { purges += 1 }
            let context = ApplyContext(actor: "pub0", role: .owner, now: Timestamp(milliseconds: 0), seq: mut)
            if case .failure(let rejection) = board.apply(try decode(op).op, context: context) {
                Issue.record("op \(mut) was refused: \(rejection)")
            }
            source.answered(mut: mut, accepted: true)
            #expect(board.cards.count <= 5)
        }
        #expect(purges > 40)
        #expect(board.cards.count == 5)
    }

    /// A refused add (a `rate_limited` one, say) never puts its card in the pool: nothing later moves, edits or
    /// purges a card that does not exist, so no `not_found` is of the load tool's own making.
    @Test func aCardWhoseAddWasRefusedIsNeverUsed() throws {
        var source = OpSource(boards: ["a"], mix: try OpMix(parsing: "move=2,edit=1,add=1"), run: "r", publisher: 0, cardsPerBoard: 5)
        var board = Board(id: "a", name: "A", owner: "pub0")
        var refusedCards: Set<String> = []
        for mut in UInt64(1)...300 {
            let decoded = try decode(source.next(mut: mut)).op
            // Every third add is refused, as a rate-limited server would.
            if case .addCard(let add) = decoded, mut % 3 == 0 {
                refusedCards.insert(add.card.rawValue)
                source.answered(mut: mut, accepted: false)
                continue
            }
            if let card = decoded.card { #expect(!refusedCards.contains(card.rawValue), "op \(mut) uses refused card \(card)") }
            let context = ApplyContext(actor: "pub0", role: .owner, now: Timestamp(milliseconds: 0), seq: mut)
            if case .failure(let rejection) = board.apply(decoded, context: context) {
                Issue.record("op \(mut) was refused: \(rejection)")
            }
            source.answered(mut: mut, accepted: true)
        }
        #expect(!refusedCards.isEmpty)
        #expect(source.poolSize(0) > 0)
    }
}

@Suite struct LayoutTests {
    @Test func publishersThenSubscribersBoardByBoardThenIdle() {
        let layout = LoadPlan.Layout(boards: 2, subscribersPerBoard: 3, publishers: 2, idle: 1)
        #expect(layout.connections == 9)
        #expect(layout.role(of: 0) == .publisher(0))
        #expect(layout.role(of: 1) == .publisher(1))
        #expect(layout.role(of: 2) == .subscriber(board: 0, index: 0))
        #expect(layout.role(of: 5) == .subscriber(board: 1, index: 0))
        #expect(layout.role(of: 7) == .subscriber(board: 1, index: 2))
        #expect(layout.role(of: 8) == .idle(0))
    }
}

@Suite struct ServerLineTests {
    @Test func readsTypeSeqMutAndThePublisherNumber() {
        let line = ByteBuffer(string: #"{"type":"delta","board":"b","seq":42,"actor":"u","client_id":"load-ab12-p17","mut":9,"op":{"kind":"chat","text":"x \"p1\""}}"#)
        let scanned = ServerLine(line)
        #expect(scanned.kind == .delta)
        #expect(scanned.seq == 42)
        #expect(scanned.mut == 9)
        #expect(scanned.publisher == 17)
        #expect(ServerLine(ByteBuffer(string: #"{"type":"delta","client_id":"load-x-s1.2","mut":1}"#)).publisher == nil)
        #expect(ServerLine(ByteBuffer(string: #"{"type":"delta","client_id":"cork-alice","mut":1}"#)).publisher == nil)
        #expect(ServerLine(ByteBuffer(string: #"{"type":"delta","client_id":"-p","mut":1}"#)).publisher == nil)
    }
}

@Suite struct ServerLineEscapeTests {
    @Test func escapedQuotesAndBackslashesDoNotEndAStringEarly() {
        // "a\\" ends with an escaped backslash, so its quote closes it; "q\"-p2" holds an escaped quote.
        let line = ByteBuffer(string: #"{"type":"delta","x":"a\\","seq":3,"client_id":"q\"-p2","mut":1,"op":{}}"#)
        let scanned = ServerLine(line)
        #expect(scanned.kind == .delta && scanned.seq == 3 && scanned.mut == 1 && scanned.publisher == 2)
        // An unterminated string is not a line at all.
        #expect(ServerLine(ByteBuffer(string: #"{"type":"delta","seq":3,"x":"abc\"}"#)).seq == 3)
        #expect(ServerLine(ByteBuffer(string: #"{"type":"delta","x":"abc\"}"#)).kind == .delta)
    }
}

@Suite struct ServerLineEarlyStopTests {
    @Test func aDeltaIsReadUpToItsOpAndAnyKeyOrderStillWorks() {
        // Fields after `op` are not needed; a broken tail does not matter once the envelope is read.
        let early = ServerLine(ByteBuffer(string: #"{"type":"delta","seq":5,"client_id":"load-r-p3","mut":8,"op":{"kind":"#))
        #expect(early.kind == .delta && early.seq == 5 && early.mut == 8 && early.publisher == 3)
        // Another server's key order: the fields after the op are still found.
        let late = ServerLine(ByteBuffer(string: #"{"op":{"kind":"chat","text":"}"},"mut":2,"type":"delta","client_id":"a-p1","seq":9}"#))
        #expect(late.kind == .delta && late.seq == 9 && late.mut == 2 && late.publisher == 1)
        let ack = ServerLine(ByteBuffer(string: #"{"type":"ack","board":"b","mut":3,"seq":4,"noop":true}"#))
        #expect(ack.kind == .ack && ack.mut == 3 && ack.seq == 4)
    }
}
