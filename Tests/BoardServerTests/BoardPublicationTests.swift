import BoardCore
import BoardWire
import Foundation
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// The store's writer publishes a durable batch itself: acks and deltas leave from its thread, and the
/// board settles afterwards. These check what reaches each connection, and in which order, whoever sends.
@Suite struct BoardPublicationTests {
    /// A connection on an embedded loop, and what it was sent.
    struct Peer {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel
        let session: SessionRef

        init(_ name: String, user: UserID = "owner") {
            channel = EmbeddedChannel(loop: loop)
            session = SessionRef(
                id: SessionID(name), user: user, clientID: ClientID("client-\(name)"), outbox: Outbox(channel: channel))
        }

        /// Every line written since the last call, as `type`, then `mut` or `seq` (`ack 3`, `delta 12`, `subscribed`).
        func lines() throws -> [String] {
            loop.run()
            var bytes: [UInt8] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
            return try bytes.split(separator: UInt8(ascii: "\n")).map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                let type = object["type"] as? String ?? "?"
                if type == "ack", let mut = object["mut"] as? Int { return "ack \(mut) seq \(object["seq"] as? Int ?? 0)" }
                if let seq = object["seq"] as? Int { return "\(type) \(seq)" }
                return type
            }
        }
    }

    static func entry(_ seq: UInt64, mut: UInt64? = nil, from origin: Peer? = nil) -> BoardPublication.Entry {
        let line = LineWriter.deltaLine(
            board: "main", seq: seq, at: Timestamp(milliseconds: 0), actor: "owner", clientID: origin?.session.clientID,
            mut: mut, op: .chat(text: "hi"),
            activity: Activity(seq: seq, at: Timestamp(milliseconds: 0), actor: "owner", kind: "chat", text: "hi"))
        return .init(seq: seq, mut: mut, line: ByteBuffer(bytes: line), origin: origin?.session, then: [])
    }

    static func subscribed(_ seq: Int) -> ByteBuffer {
        ByteBuffer(string: #"{"type":"subscribed","board":"main","seq":\#(seq)}"# + "\n")
    }

    static func batch(_ number: UInt64, _ entries: [BoardPublication.Entry], removing: Set<UserID> = []) -> BoardPublication.Batch {
        BoardPublication.Batch(number: number, entries: entries, removing: removing)
    }

    @Test func theWriterSendsTheOriginItsAckBeforeItsDeltaAndEveryOtherSubscriberTheDeltasOnce() throws {
        let publication = BoardPublication(board: "main")
        let (sender, other, bystander) = (Peer("sender"), Peer("other"), Peer("bystander"))
        publication.send([Self.subscribed(0)], to: sender.session, after: 0, joining: true)
        publication.send([Self.subscribed(0)], to: other.session, after: 0, joining: true)
        _ = try sender.lines() + other.lines()
        #expect(!publication.isPublished(1))
        publication.publish(Self.batch(1, [Self.entry(1, mut: 7, from: sender), Self.entry(2), Self.entry(3, mut: 4, from: bystander)]))
        #expect(try sender.lines() == ["ack 7 seq 1", "delta 1", "delta 2", "delta 3"])
        #expect(try other.lines() == ["delta 1", "delta 2", "delta 3"])
        #expect(try bystander.lines() == ["ack 4 seq 3"], "an origin that does not subscribe gets its ack alone")
        #expect(publication.isPublished(1), "the board learns that the writer sent it")
        #expect(!publication.isPublished(2))
        publication.settled(1)
        #expect(!publication.isPublished(1))
    }

    @Test func aBatchThatEndsAMembershipEndsThatSubscriptionBeforeAnyOfItsDeltas() throws {
        let publication = BoardPublication(board: "main")
        let staying = Peer("staying")
        let leaving = Peer("leaving", user: "ann")
        publication.send([Self.subscribed(0)], to: staying.session, after: 0, joining: true)
        publication.send([Self.subscribed(0)], to: leaving.session, after: 0, joining: true)
        _ = try staying.lines() + leaving.lines()
        publication.deliver(Self.batch(1, [Self.entry(1, mut: 1, from: staying), Self.entry(2)], removing: ["ann"]))
        #expect(try staying.lines() == ["ack 1 seq 1", "delta 1", "delta 2"])
        #expect(try leaving.lines() == ["error"], "no delta of the batch reaches a member it removes")
        publication.fanOut(ByteBuffer(string: #"{"type":"presence","board":"main"}"# + "\n"))
        #expect(try leaving.lines() == [], "and nothing after it")
        #expect(try staying.lines() == ["presence"])
    }

    @Test func aSubscriberJoiningBeforeTheBoardSettlesGetsThePublishedBatchAfterItsFirstLines() throws {
        let publication = BoardPublication(board: "main")
        let (early, late, later, resumed) = (Peer("early"), Peer("late"), Peer("later"), Peer("resumed"))
        publication.send([Self.subscribed(5)], to: early.session, after: 5, joining: true)
        // `late` subscribed at seq 5 (the board's committed state) while 6 and 7 were in the writer.
        publication.send([Self.subscribed(5)], to: late.session, after: 5, joining: true)
        publication.publish(Self.batch(3, [Self.entry(6), Self.entry(7)]))
        #expect(publication.isPublished(3))
        #expect(try late.lines() == ["subscribed 5", "delta 6", "delta 7"])
        // `later` subscribed at seq 5 too, but after the writer had published 6 and 7 to the others.
        publication.send([Self.subscribed(5)], to: later.session, after: 5, joining: true)
        #expect(try later.lines() == ["subscribed 5", "delta 6", "delta 7"])
        #expect(try early.lines() == ["subscribed 5", "delta 6", "delta 7"])
        // A resume whose lines reach seq 6 gets only what follows.
        publication.send([Self.subscribed(6)], to: resumed.session, after: 6, joining: true)
        #expect(try resumed.lines() == ["subscribed 6", "delta 7"])
        // A resync snapshot (not joining: the session subscribes already) with a trailer after the batch.
        publication.send([Self.subscribed(5)], to: later.session, after: 5, then: [Self.subscribed(99)], joining: false)
        #expect(try later.lines() == ["subscribed 5", "delta 6", "delta 7", "subscribed 99"])
        publication.settled(3)
        #expect(!publication.isPublished(3), "settled: the board's committed state holds them now")
        let last = Peer("last")
        publication.send([Self.subscribed(7)], to: last.session, after: 7, joining: true)
        #expect(try last.lines() == ["subscribed 7"])
        publication.publish(Self.batch(4, [Self.entry(8)]))
        #expect(try last.lines() == ["delta 8"])
        #expect(try early.lines() == ["delta 8"])
    }
}
