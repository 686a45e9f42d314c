// Fuzz target: the reducer (BoardCore) driven by ops decoded from the input's lines with the server's own decoder
// (LineCoder.decodeClient). Each op is applied in place and on a copy; the two must agree, a refused op must leave
// the board exactly as it was, and replaying the accepted ops on a fresh board must give the same board hash.
import BoardCore
import BoardWire

let coder = LineCoder()
let owner: UserID = "ann"

func fresh() -> Board {
    var board = Board(id: "main", name: "Main", owner: owner)
    board.members["bob"] = Member(id: "bob", role: .editor)
    board.members["vic"] = Member(id: "vic", role: .viewer)
    return board
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    var board = fresh()
    var accepted: [(Op, ApplyContext)] = []
    let actors: [UserID] = [owner, "bob", "vic", "eve"]
    for (index, line) in input.split(separator: 0x0A).prefix(64).enumerated() {
        guard case .op(let mutation)? = try? coder.decodeClient(line), case .op(let op) = mutation.op else { continue }
        let actor = actors[index % actors.count]
        let context = ApplyContext(
            actor: actor, role: board.members[actor]?.role ?? .viewer,
            now: Timestamp(milliseconds: 1_700_000_000_000 + Int64(index) * 1_000), seq: board.seq + 1)
        let copied = board.applying(op, context: context)
        let before = board
        switch board.apply(op, context: context) {
        case .failure(let rejection):
            require(board == before, "\(op.kind) was refused (\(rejection)) but changed the board")
            if case .failure(let other) = copied {
                require(other == rejection, "in place refused with \(rejection), the copy with \(other)")
            } else {
                fatalError("in place refused \(op.kind), the copy accepted it")
            }
        case .success(let result):
            guard case .success(let change) = copied else { fatalError("in place accepted \(op.kind), the copy refused it") }
            require(change.board == board, "\(op.kind): the copy and the in-place board differ")
            require(change.isNoop == result.isNoop, "\(op.kind): no-op disagrees")
            if result.isNoop {
                require(board == before, "\(op.kind) was a no-op but changed the board")
            } else {
                require(board.seq == context.seq, "\(op.kind): seq \(board.seq) != \(context.seq)")
                accepted.append((op, context))
            }
        }
    }
    var replay = fresh()
    for (op, context) in accepted {
        guard case .success = replay.apply(op, context: context) else { fatalError("replaying \(op.kind) was refused") }
    }
    require(replay.contentHash == board.contentHash, "replaying the accepted ops gave another board")
    return 0
}
