import BoardCore
import BoardWire
import NIOCore
import Synchronization

/// A board's subscribers, shared by the board and the store's writer thread, under one lock.
///
/// The moment a batch is durable, the writer publishes it from its own thread (``publish(_:)``): each origin's
/// `ack` and the batch's `delta` lines go to the event loops from there, without waking the board first. The board
/// settles its own state (``BoardMachine``) afterwards, off the path of the ack.
///
/// Whatever must stay in order with the deltas goes through the lock: the writer's publishes, the board's own
/// fan-out (presence, other nodes' changes), a subscription's first lines and a resync snapshot; so those lines
/// reach a connection in the order they took the lock. A batch that takes members off the board ends their
/// subscriptions (each gets `error` `not_found`) before any of its deltas go out. The last batch published stays
/// here until the board has settled it, so a subscription that starts from the board's settled state in between
/// gets its deltas after its snapshot (``send(_:to:after:then:joining:)``).
final class BoardPublication: Sendable {
    /// One change of a batch.
    struct Entry {
        var seq: UInt64
        var mut: UInt64?
        /// Its `delta` line: the change's one encoding, which the board's log keeps too.
        var line: ByteBuffer
        /// Who gets its `ack`, just before its delta when it subscribes.
        var origin: SessionRef?
        /// Lines for sessions right after this change's `ack` and delta: answers the origin's client was given
        /// for later ops without a commit (a refusal, a no-op), which must not overtake this `ack`.
        var then: [(session: SessionRef, line: ByteBuffer)]
    }

    /// A durable batch to send.
    struct Batch {
        var number: UInt64
        var entries: [Entry]
        /// Users the batch takes off the board.
        var removing: Set<UserID>
    }

    private struct State {
        var fanOut = FanOut()
        /// The last batch the writer published, until the board settles it.
        var published: Batch?
    }

    let board: BoardID
    private let state = Mutex(State())

    init(board: BoardID) { self.board = board }

    /// Runs `body` on the subscribers, under the lock (adding or removing one, the board's own fan-out).
    func withFanOut<Result: Sendable>(_ body: (inout FanOut) -> Result) -> Result {
        state.withLock { body(&$0.fanOut) }
    }

    /// Called by the writer once `batch` is durable: sends its acks and deltas. The acks of origins that do not
    /// subscribe are queued under the lock too: the board may settle the batch as soon as it is marked published,
    /// and what it answers next must not overtake them.
    func publish(_ batch: Batch) {
        state.withLock { state in
            state.published = batch
            Self.send(Self.deliver(batch, board: board, to: &state.fanOut))
        }
    }

    /// Writes one of the board's answers (a refusal, a no-op's or a resend's `ack`) to `session`, in order with
    /// what was published before it and ahead of what is published after.
    func answer(_ line: ByteBuffer, to session: SessionRef) {
        state.withLock { state in
            state.fanOut.seal(loopOf: session.outbox.channel)
            session.outbox.send(line)
        }
    }

    /// Whether batch `number` was published (the board may settle it without waiting for the writer's answer).
    func isPublished(_ number: UInt64) -> Bool { state.withLock { $0.published?.number == number } }

    /// The board settled batch `number`: its state holds it now.
    func settled(_ number: UInt64) {
        state.withLock { if $0.published?.number == number { $0.published = nil } }
    }

    /// Sends a durable batch the writer did not publish (the board does it).
    func deliver(_ batch: Batch) {
        state.withLock { Self.send(Self.deliver(batch, board: board, to: &$0.fanOut)) }
    }

    /// Sends `lines` (other nodes' changes, presence) to every subscriber, after ending the subscriptions of
    /// `removing`.
    func fanOut(_ lines: ByteBuffer, removing: Set<UserID> = [], personal: [SessionID: [ByteBuffer]] = [:]) {
        state.withLock { state in
            Self.end(removing, board: board, in: &state.fanOut)
            state.fanOut.send(lines, personal: personal)
        }
    }

    /// Writes `lines` to `session` under the lock, then the deltas after `seq` of a batch the writer has published
    /// but the board has not settled (the board's state, which `lines` come from, does not hold them yet), then
    /// `trailer`. `joining`: the session joins the fan-out too, so every later batch reaches it after these lines.
    /// For a subscription (its first lines) and a resync snapshot.
    func send(
        _ lines: [ByteBuffer], to session: SessionRef, after seq: UInt64, then trailer: [ByteBuffer] = [], joining: Bool
    ) {
        state.withLock { state in
            var lines = lines
            if let batch = state.published {
                lines += batch.entries.lazy.filter { $0.seq > seq }.map(\.line)
            }
            lines += trailer
            if joining { state.fanOut.insert(session) }
            session.outbox.sendBulk(lines)
        }
    }

    /// Ends the subscriptions of `users`: each of their sessions gets `error` `not_found` for the board.
    private static func end(_ users: Set<UserID>, board: BoardID, in fanOut: inout FanOut) {
        guard !users.isEmpty else { return }
        let line = Lines.error(WireError(.notFound, "you are no longer a member of board \(board)", board: board))
        for channel in fanOut.remove(users: users) { Outbox(channel: channel).send(line) }
    }

    /// The acks of origins that do not subscribe, each session's in one buffer.
    typealias DirectAcks = (outbox: Outbox, acks: ByteBuffer)

    static func send(_ acks: [DirectAcks]) {
        for origin in acks { origin.outbox.send(origin.acks) }
    }

    /// Writes a durable batch to the subscribers: its `delta` lines back to back in one buffer that every subscriber
    /// shares (a batch of one change shares that change's own line, with no copy); each origin that subscribes gets its acks, each just before its own delta, as slices of the shared
    /// buffer around the acks. Returns the acks of the origins that do not subscribe and of resends, for the caller
    /// to send.
    static func deliver(_ batch: Batch, board: BoardID, to fanOut: inout FanOut) -> [DirectAcks] {
        end(batch.removing, board: board, in: &fanOut)
        let entries = batch.entries
        var shared: ByteBuffer
        var offsets: [Int] = []
        offsets.reserveCapacity(entries.count + 1)
        if entries.count == 1, let only = entries.first?.line {
            shared = only
            offsets = [only.readerIndex, only.writerIndex]
        } else {
            shared = ByteBufferAllocator().buffer(capacity: entries.reduce(0) { $0 + $1.line.readableBytes })
            for entry in entries {
                offsets.append(shared.writerIndex)
                var line = entry.line
                shared.writeBuffer(&line)
            }
            offsets.append(shared.writerIndex)
        }
        var personal: [SessionID: [ByteBuffer]] = [:]
        var cut: [SessionID: Int] = [:]
        var direct: [SessionID: DirectAcks] = [:]
        for (index, entry) in entries.enumerated() {
            if let mut = entry.mut, let origin = entry.origin {
                let ack = ByteBuffer(bytes: LineWriter.ackLine(board: board, mut: mut, seq: entry.seq))
                if fanOut.contains(origin.id) {
                    let from = cut[origin.id] ?? shared.readerIndex
                    personal[origin.id, default: []].append(contentsOf: [
                        shared.getSlice(at: from, length: offsets[index] - from) ?? ByteBuffer(), ack,
                    ])
                    cut[origin.id] = offsets[index]
                } else {
                    var ack = ack
                    direct[origin.id, default: (origin.outbox, ByteBuffer())].acks.writeBuffer(&ack)
                }
            }
            for (session, line) in entry.then {
                if fanOut.contains(session.id) {
                    // After this change's delta: the slice up to its end, then the line.
                    let from = cut[session.id] ?? shared.readerIndex
                    personal[session.id, default: []].append(contentsOf: [
                        shared.getSlice(at: from, length: offsets[index + 1] - from) ?? ByteBuffer(), line,
                    ])
                    cut[session.id] = offsets[index + 1]
                } else {
                    var line = line
                    direct[session.id, default: (session.outbox, ByteBuffer())].acks.writeBuffer(&line)
                }
            }
        }
        for (session, from) in cut {
            personal[session, default: []].append(shared.getSlice(at: from, length: shared.writerIndex - from) ?? ByteBuffer())
        }
        fanOut.send(shared, personal: personal)
        return Array(direct.values)
    }
}
