import BoardCore
import BoardStore
import BoardTesting
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// Many people joining one board: the board's JSON is encoded once per seq for every `snapshot`, and
/// presence lines are written together, each subscriber getting every line but those about itself, in order.
@Suite(.timeLimit(.minutes(1))) struct JoinAtScaleTests {
    static func withBoard(
        flushesPresence: Bool = true, _ body: (BoardActor, SQLiteStore) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("join-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        var board = Board(id: "main", name: "Main \"quoted\" ✓", owner: "owner")
        for user in ["ann", "bob", "cy"] { board.members[UserID(user)] = Member(id: UserID(user), role: .editor) }
        _ = try await store.createBoard(board)
        var configuration = ServerConfiguration()
        configuration.flushesPresence = flushesPresence
        let actor = try await BoardActor.load(
            "main", store: store, configuration: configuration, clock: WallClock(), logger: Logger(label: "test"))
        try await body(actor, store)
        try await store.close()
    }

    @Test func theCachedSnapshotLineIsByteForByteTheEncodedMessage() async throws {
        try await Self.withBoard { board, _ in
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await board.run() }
                let channel = NIOAsyncTestingChannel()
                let owner = SessionRef(id: "s1", user: "owner", clientID: "c1", outbox: Outbox(channel: channel))
                for round in 0..<3 {
                    for req in [nil, RequestID.int(7), RequestID.string("join-\(round)")] {
                        for reason in ServerMessage.SnapshotReason.allCases {
                            let committed = await board.committed
                            let expected = Lines.line(
                                .snapshot(
                                    ServerMessage.Snapshot(
                                        req: req, board: "main", seq: committed.seq, epoch: await board.epoch, reason: reason,
                                        state: committed)))
                            let line = await board.snapshotLine(req: req, reason: reason)
                            #expect(
                                Array(line.readableBytesView) == Array(expected.readableBytesView),
                                "seq \(committed.seq), req \(String(describing: req)), \(reason)")
                        }
                    }
                    // A new seq: the cached JSON must not be reused.
                    await board.submit(.op(.chat(text: "round \(round)")), mut: UInt64(round + 1), from: owner)
                    await board.drained()
                }
                board.stop()
                try await tasks.waitForAll()
            }
        }
    }

    @Test func presenceLinesReachEveryOtherSubscriberInOrderAndNeverTheSessionTheyAreAbout() async throws {
        // Only the flush below writes: on a busy machine the board's own 20 ms flush could otherwise come between
        // the subscribes and change who gets what.
        try await Self.withBoard(flushesPresence: false) { board, _ in
            let users: [UserID] = ["ann", "bob", "cy"]
            let channels = users.map { _ in NIOAsyncTestingChannel() }
            let refs = users.indices.map {
                SessionRef(
                    id: SessionID("s-\(users[$0])"), user: users[$0], clientID: ClientID("c\($0)"),
                    outbox: Outbox(channel: channels[$0]))
            }
            for ref in refs { await board.subscribe(ref, since: nil, epoch: nil, req: nil) }
            // cy leaves again before the flush: its join and its leave reach the others, in that order.
            await board.unsubscribe(refs[2].id)
            await board.flushPresence()
            var received: [[ServerMessage]] = []
            for channel in channels {
                await channel.testingEventLoop.run()
                var messages: [ServerMessage] = []
                while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
                    for line in buffer.readableBytesView.split(separator: 0x0A) {
                        messages.append(try LineCoder().decodeServer(Array(line)))
                    }
                }
                received.append(messages)
            }
            func presenceAbout(_ messages: [ServerMessage]) -> [String] {
                messages.compactMap {
                    switch $0 {
                    case .presence(let p): "joined \(p.entry.session)"
                    case .presenceLeft(let p): "left \(p.session)"
                    default: nil
                    }
                }
            }
            #expect(presenceAbout(received[0]) == ["joined s-bob", "joined s-cy", "left s-cy"])
            #expect(presenceAbout(received[1]) == ["joined s-ann", "joined s-cy", "left s-cy"])
            // cy is no longer subscribed when the flush runs: it gets nothing of it.
            #expect(presenceAbout(received[2]) == [])
        }
    }
}
