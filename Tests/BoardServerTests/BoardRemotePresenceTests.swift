import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// A board's side of presence across nodes (no sockets): local changes go to the relay, other nodes' entries show in
/// `presence.state` and as lines to every local subscriber, and the board's own rules (timeouts) leave them alone.
@Suite(.timeLimit(.minutes(1))) struct BoardRemotePresenceTests {
    /// Every line written to `channel` so far.
    static func lines(_ channel: NIOAsyncTestingChannel) async throws -> [String] {
        await channel.testingEventLoop.run()
        var lines: [String] = []
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
            lines += String(buffer: buffer).split(separator: "\n").map(String.init)
        }
        return lines
    }

    @Test("remote entries show in presence.state (session order) and as lines; local changes go to the relay, remote ones do not; timeouts skip them")
    func remoteEntriesMergeIntoTheBoard() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await SQLiteStore.open(directory: directory, logger: Logger(label: "test"))
        _ = try await store.createBoard(Board(id: "main", name: "Main", owner: "owner"))
        var configuration = ServerConfiguration()
        configuration.limits.presenceTimeoutMs = 0
        let outbound = PresenceOutbound()
        configuration.presenceOutbound = outbound
        let board = try await BoardActor.load("main", store: store, configuration: configuration, clock: WallClock(), logger: Logger(label: "test"))
        var relayed = outbound.stream.makeAsyncIterator()

        let aliceChannel = NIOAsyncTestingChannel()
        let alice = SessionRef(id: "s-m", user: "owner", clientID: "c1", outbox: Outbox(channel: aliceChannel))
        await board.subscribe(alice, since: nil, epoch: nil, req: nil)
        let aliceEntry = ServerMessage.PresenceEntry(session: "s-m", user: "owner", state: .viewing)
        let joined = await relayed.next()
        #expect(joined == .set(board: "main", entry: aliceEntry), "a local join goes to the other nodes")

        let bob = ServerMessage.PresenceEntry(session: "s-b", user: "bob", state: .editing, card: "c1")
        let zed = ServerMessage.PresenceEntry(session: "s-z", user: "zed", state: .viewing)
        await board.remotePresenceSet(bob)
        await board.remotePresenceSet(zed)
        await board.remotePresenceSet(bob)  // a repetition: no line
        await board.flushPresence()
        let aliceLines = try await Self.lines(aliceChannel).filter { $0.contains(#""type":"presence""#) }
        #expect(aliceLines == [
            #"{"type":"presence","board":"main","session":"s-b","user":"bob","state":"editing","card":"c1"}"#,
            #"{"type":"presence","board":"main","session":"s-z","user":"zed","state":"viewing"}"#,
        ])

        // A new local subscriber's presence.state holds everyone in session order.
        let carolChannel = NIOAsyncTestingChannel()
        await board.subscribe(
            SessionRef(id: "s-c", user: "owner", clientID: "c2", outbox: Outbox(channel: carolChannel)), since: nil, epoch: nil, req: nil)
        let state = try #require(try await Self.lines(carolChannel).first { $0.contains("presence.state") })
        let sessions = try #require(
            (try JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any])?["sessions"] as? [[String: Any]])
        #expect(sessions.compactMap { $0["session"] as? String } == ["s-b", "s-c", "s-m", "s-z"])
        let carolEntry = ServerMessage.PresenceEntry(session: "s-c", user: "owner", state: .viewing)
        let carolJoined = await relayed.next()
        #expect(carolJoined == .set(board: "main", entry: carolEntry))

        // The board's timeout leaves another node's editing alone (its node decides); an announcement is local only.
        await board.expirePresence()
        await board.announcePresence()
        var announced: [PresenceRelayEvent?] = []
        announced.append(await relayed.next())
        announced.append(await relayed.next())
        #expect(Set(announced.compactMap { $0 }) == [.set(board: "main", entry: aliceEntry), .set(board: "main", entry: carolEntry)])

        // A remote leave: presence.left to every local subscriber, never relayed back; a local leave is relayed.
        await board.remotePresenceLeft("s-b", user: "bob")
        await board.remotePresenceLeft("s-b", user: "bob")  // twice: nothing more
        await board.unsubscribe("s-c")
        await board.flushPresence()
        let left = try await Self.lines(aliceChannel).filter { $0.contains("presence.left") }
        #expect(left == [
            #"{"type":"presence.left","board":"main","session":"s-b","user":"bob"}"#,
            #"{"type":"presence.left","board":"main","session":"s-c","user":"owner"}"#,
        ])
        let carolLeft = await relayed.next()
        #expect(carolLeft == .left(board: "main", session: "s-c", user: "owner"))
        outbound.finish()
        let rest = await relayed.next()
        #expect(rest == nil, "nothing else was relayed")
        try await store.close()
    }
}
