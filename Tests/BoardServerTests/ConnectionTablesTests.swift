import BoardCore
import BoardWire
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// Tables keyed by connection give their storage back when connections close: Swift's
/// collections keep their capacity, so after thousands of connections closed the directory and each board kept
/// storage for all of them, live in the middle of the heap. No sizes in bytes here: the figures are in bench/results/.
@Suite(.timeLimit(.minutes(1))) struct ConnectionTablesTests {
    static let count = 1_000

    static func session(_ i: Int, channel: any Channel) -> SessionRef {
        SessionRef(id: SessionID("s-\(i)"), user: "owner", clientID: ClientID("c-\(i)"), outbox: Outbox(channel: channel))
    }

    @Test func theSessionDirectoryShrinksOnceItsSessionsClose() async throws {
        let directory = SessionDirectory(connectionsMax: 10_000, perUserMax: 10_000, preauthPerIP: 10_000)
        let channel = NIOAsyncTestingChannel()
        for i in 0..<Self.count {
            #expect(await directory.open(from: "127.0.0.1", outbox: Outbox(channel: channel)))
            await directory.leftPreauth("127.0.0.1", Outbox(channel: channel))
            #expect(await directory.register(Self.session(i, channel: channel)))
        }
        #expect(await directory.sessionCapacity >= Self.count)
        for i in 1..<Self.count { await directory.close(SessionID("s-\(i)")) }
        #expect(await directory.all().map(\.id) == ["s-0"])
        let capacity = await directory.sessionCapacity
        #expect(capacity <= 2 * SparseCapacity.floor, "storage for \(capacity) sessions kept for 1 open session")
    }

    @Test func aBoardsSubscriberTablesShrinkOnceItsSubscribersLeave() async throws {
        try await JoinAtScaleTests.withBoard { board, _ in
            let channel = NIOAsyncTestingChannel()
            for i in 0..<Self.count {
                await board.subscribe(Self.session(i, channel: channel), since: nil, epoch: nil, present: false, req: nil)
            }
            #expect(await board.subscribers.count == Self.count)
            #expect(board.publication.withFanOut { $0.memberCapacity } >= Self.count)
            for i in 1..<Self.count { await board.sessionEnded(SessionID("s-\(i)")) }
            #expect(await board.subscribers.count == 1)
            let subscribers = await board.subscribers.capacity
            let members = board.publication.withFanOut { $0.memberCapacity }
            #expect(subscribers <= 2 * SparseCapacity.floor, "storage for \(subscribers) subscribers kept for 1")
            #expect(members <= 2 * SparseCapacity.floor, "fan-out storage for \(members) members kept for 1")
            board.stop()
        }
    }

    @Test func sparseMeansAtMostAQuarterFullAboveTheFloor() {
        #expect(!SparseCapacity.isSparse(count: 0, capacity: SparseCapacity.floor))
        #expect(SparseCapacity.isSparse(count: 0, capacity: SparseCapacity.floor + 1))
        #expect(SparseCapacity.isSparse(count: 100, capacity: 400))
        #expect(!SparseCapacity.isSparse(count: 101, capacity: 400))
        var table = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ($0, $0) })
        for key in 10..<1_000 { table[key] = nil }
        table.releaseSparseCapacity()
        #expect(table == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0) }))
        #expect(table.capacity < 1_000)
    }
}
