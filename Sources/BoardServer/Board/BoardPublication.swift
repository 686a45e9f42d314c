import BoardCore
import BoardWire
import NIOCore
import Synchronization

/// A board's subscribers and the batch the store's writer is committing for it, shared by the board actor and the
/// writer's thread (issue 12: an op crosses threads three times, event loop → board → writer → event loops).
///
/// The moment a batch is durable, the writer publishes it from its own thread: each origin's `ack` lines and the
/// batch's `delta` lines go to the event loops from there, without waking the board first. The board settles its
/// own state (the committed board, the log, the exactly-once marks) afterwards, off the path of the ack.
///
/// Whatever must stay in order with the deltas goes through the one lock — the writer's publishes, the board's own
/// fan-out (presence, catch-up, a batch the writer leaves to the board), a subscription's first lines and a resync
/// snapshot — so those lines reach a connection in the order they took the lock. (Replies that only answer a
/// request — a `fetch`'s deltas, `history`, rejects, the acks of origins that do not subscribe — are written
/// directly.) A batch that ends a membership is left to the board (`publishable` false), which ends those
/// subscriptions before any of its deltas go out. The board settles a published batch at its next request if the
/// writer's answer has not reached it yet (`BoardActor.settleIfPublished`), so nobody who heard of a change from
/// the writer asks the board about it too early.
final class BoardPublication: Sendable {
    /// One change of the batch in flight.
    struct Entry {
        var seq: UInt64
        var mut: UInt64?
        /// Its `delta` line (the bytes every subscriber gets).
        var line: [UInt8]
        /// Who gets its `ack`, just before its delta when it subscribes.
        var origin: SessionRef?
        /// Sessions that sent the same mutation again while it waited: each gets an `ack` too, after the lock (a
        /// resend may see its delta before its ack; Protocol.md, "Durability and order").
        var resentBy: [SessionRef] = []
    }

    /// What `attach` found.
    enum Attachment: Equatable {
        /// The change is in flight: the resend gets an `ack` too when it is published.
        case attached
        /// The change is durable and published already; its `ack` is the caller's to send, at `seq`.
        case published(seq: UInt64)
        /// No such change in flight.
        case absent
    }

    private struct Batch {
        var entries: [Entry]
        var publishable: Bool
        var published = false
    }

    private struct State {
        var fanOut = FanOut()
        var batch: Batch?
    }

    let board: BoardID
    private let state = Mutex(State())

    init(board: BoardID) { self.board = board }

    /// Runs `body` on the subscribers, under the lock (adding or removing one, the board's own fan-out).
    func withFanOut<Result: Sendable>(_ body: (inout FanOut) -> Result) -> Result {
        state.withLock { body(&$0.fanOut) }
    }

    /// The batch the board hands to the writer now. `publishable` false: the writer leaves it to the board.
    func begin(_ entries: [Entry], publishable: Bool) {
        state.withLock { $0.batch = Batch(entries: entries, publishable: publishable) }
    }

    /// Called by the writer once the batch in flight is durable: sends its acks and deltas, unless it is the board's
    /// to send. Returns whether it did.
    @discardableResult
    func publish() -> Bool {
        state.withLock { state -> [DirectAcks]? in
            guard var batch = state.batch, batch.publishable, !batch.published else { return nil }
            batch.published = true
            state.batch = batch
            return Self.deliver(batch.entries, board: board, to: &state.fanOut)
        }.map { acks in
            Self.send(acks)
            return true
        } ?? false
    }

    /// The board settles the batch in flight: it is no longer shared. Returns whether the writer published it.
    func finish() -> Bool {
        state.withLock { state in
            defer { state.batch = nil }
            return state.batch?.published ?? false
        }
    }

    /// Sends a batch the writer did not publish (the board does it, after its own checks).
    func deliver(_ entries: [Entry]) {
        Self.send(state.withLock { Self.deliver(entries, board: board, to: &$0.fanOut) })
    }

    /// A resend of the change at `seq` arrived from `session` while that change is in flight.
    func attach(seq: UInt64, _ session: SessionRef) -> Attachment {
        state.withLock { state in
            guard var batch = state.batch, let index = batch.entries.firstIndex(where: { $0.seq == seq }) else {
                return .absent
            }
            if batch.published { return .published(seq: seq) }
            batch.entries[index].resentBy.append(session)
            state.batch = batch
            return .attached
        }
    }

    /// Whether the batch in flight is durable and published (the board may settle it without waiting for the
    /// writer's answer).
    var isPublished: Bool { state.withLock { $0.batch?.published ?? false } }

    /// Writes `lines` to `session` under the lock, then the deltas after `seq` of a batch the writer has published
    /// but the board has not settled (its committed state, which `lines` come from, does not hold them yet), then
    /// `trailer`. `joining`: the session joins the fan-out too, so every later batch reaches it after these lines.
    /// For a subscription (its first lines) and a resync snapshot.
    func send(
        _ lines: [ByteBuffer], to session: SessionRef, after seq: UInt64, then trailer: [ByteBuffer] = [], joining: Bool
    ) {
        state.withLock { state in
            var lines = lines
            if let batch = state.batch, batch.published {
                lines += batch.entries.lazy.filter { $0.seq > seq }.map { ByteBuffer(bytes: $0.line) }
            }
            lines += trailer
            if joining { state.fanOut.insert(session) }
            session.outbox.sendBulk(lines)
        }
    }

    /// The batch in flight is abandoned (rolled back, or written again after a catch-up): nothing of it is sent.
    func clear() {
        state.withLock { $0.batch = nil }
    }

    /// The acks of origins that do not subscribe and of resends, each session's in one buffer: sent once the lock
    /// is released (nothing else orders them against the fan-out).
    typealias DirectAcks = (outbox: Outbox, acks: ByteBuffer)

    static func send(_ acks: [DirectAcks]) {
        for origin in acks { origin.outbox.send(origin.acks) }
    }

    /// Writes a durable batch to the subscribers: its `delta` lines back to back in one buffer that every subscriber
    /// shares; each origin that subscribes gets its acks, each just before its own delta, as slices of the shared
    /// buffer around the acks. Returns the acks of the origins that do not subscribe and of resends, for the caller
    /// to send.
    static func deliver(_ entries: [Entry], board: BoardID, to fanOut: inout FanOut) -> [DirectAcks] {
        var shared = ByteBufferAllocator().buffer(capacity: entries.reduce(0) { $0 + $1.line.count })
        var offsets: [Int] = []
        offsets.reserveCapacity(entries.count + 1)
        for entry in entries {
            offsets.append(shared.writerIndex)
            shared.writeBytes(entry.line)
        }
        offsets.append(shared.writerIndex)
        var personal: [SessionID: [ByteBuffer]] = [:]
        var cut: [SessionID: Int] = [:]
        var direct: [SessionID: DirectAcks] = [:]
        for (index, entry) in entries.enumerated() {
            guard let mut = entry.mut else { continue }
            let ack = ByteBuffer(bytes: LineWriter.ackLine(board: board, mut: mut, seq: entry.seq))
            for session in entry.resentBy {
                var ack = ack
                direct[session.id, default: (session.outbox, ByteBuffer())].acks.writeBuffer(&ack)
            }
            guard let origin = entry.origin else { continue }
            if fanOut.contains(origin.id) {
                let from = cut[origin.id] ?? 0
                personal[origin.id, default: []].append(contentsOf: [
                    shared.getSlice(at: from, length: offsets[index] - from) ?? ByteBuffer(), ack,
                ])
                cut[origin.id] = offsets[index]
            } else {
                var ack = ack
                direct[origin.id, default: (origin.outbox, ByteBuffer())].acks.writeBuffer(&ack)
            }
        }
        for (session, from) in cut {
            personal[session, default: []].append(shared.getSlice(at: from, length: shared.writerIndex - from) ?? ByteBuffer())
        }
        fanOut.send(shared, personal: personal)
        return Array(direct.values)
    }
}
