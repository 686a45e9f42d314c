import BoardClient
import BoardCore
import BoardWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a replica of a 10,000-card board costs in memory (docs/client-library.md, "Client core"): the growth of the
/// process's resident size while it is built (Glibc's module has no `mallinfo`). Run it alone for the figure
/// (`CORK_MEASURE=1 swift test --skip-build --filter ReplicaMemoryTests`): other tests allocating at the same time would add to it,
/// which is why the bound is loose.
@Suite struct ReplicaMemoryTests {
    static let cardCount = 10_000

    /// The benchmarks' board: 10,000 cards over TODO, DOING and DONE, each with a title and a one-line description.
    static func board() -> Board {
        var board = Board(id: "main", name: "Benchmark", owner: "alice")
        let columns = Board.defaultColumns.map(\.id)
        let now = Timestamp(milliseconds: 1_767_261_691_000)
        _ = board.apply(.setMember(user: "bob", role: .editor, name: nil), context: ApplyContext(actor: "alice", role: .owner, now: now, seq: 1))
        for i in 0..<cardCount {
            let op = Op.addCard(
                AddCard(
                    card: CardID("c\(i)"), column: columns[i % columns.count], title: "Card number \(i)",
                    description: "Some words about card \(i)."))
            _ = board.apply(op, context: ApplyContext(actor: "alice", role: .owner, now: now, seq: board.seq + 1))
        }
        return board
    }

    /// Only with `CORK_MEASURE=1`: building 10,000 cards through the reducer takes about a minute in a debug build.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CORK_MEASURE"] != nil))
    func aReplicaOfTenThousandCardsTakesAFewMegabytes() throws {
        #if canImport(Glibc)
        let before = Self.residentBytes()
        var replica = Replica(board: "main", user: "bob")
        _ = replica.load(Self.board(), seq: UInt64(Self.cardCount + 1), epoch: "e1")
        let bytes = Self.residentBytes() - before
        #expect(replica.view?.cards.count == Self.cardCount)
        print("ReplicaMemoryTests: a replica of \(Self.cardCount) cards holds \(bytes) bytes resident (\(bytes / Self.cardCount) per card)")
        #expect(bytes > Self.cardCount * 100, "a card cannot take less than 100 bytes")
        #expect(bytes < 64 << 20, "more than 64 MiB for 10,000 cards")
        withExtendedLifetime(replica) {}
        #endif
    }

    #if canImport(Glibc)
    /// The process's resident set size, from `/proc/self/statm`.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }
    #endif
}
