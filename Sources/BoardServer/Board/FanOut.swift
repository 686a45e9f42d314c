import BoardCore
import BoardWire
import NIOConcurrencyHelpers
import NIOCore

/// A board's subscribers grouped by the event loop of their connection, with the board's outgoing lines coalesced
/// per event loop.
///
/// A batch's delta lines are built into one buffer, once (`BoardPublication.deliver`, usually on the store writer's
/// thread); every subscriber is handed that same buffer
/// (a reference, not a copy). The few subscribers that also sent ops in the batch get their own pieces instead —
/// slices of the shared buffer with their `ack` lines in between, so each ack still comes just before its delta.
///
/// Writes are coalesced: each event loop has at most one pending task for the board. Batches committed before that
/// task runs join it, so when the loops fall behind (a thousand subscribers on two cores) a subscriber gets several
/// batches in one flush (one TLS write and one syscall) instead of one task, one flush and one syscall per batch.
/// Order is kept: a task writes its batches in commit order. A new subscriber seals the pending tasks, so lines
/// committed after it joined go out after the snapshot its subscription queued on the same event loop.
struct FanOut {
    private struct Member {
        var id: SessionID
        var user: UserID
        var channel: any Channel
    }

    /// One committed batch (or presence line) and who gets it.
    private struct Segment {
        var members: [Member]
        var shared: ByteBuffer
        var personal: [SessionID: [ByteBuffer]]
        var except: SessionID?
    }

    /// The segments one event-loop task will write; closed once the task has taken them.
    private final class Pending: Sendable {
        private let state = NIOLockedValueBox<(segments: [Segment], closed: Bool)>(([], false))

        /// Adds a segment unless the task has already taken its work.
        func add(_ segment: Segment) -> Bool {
            state.withLockedValue { state in
                guard !state.closed else { return false }
                state.segments.append(segment)
                return true
            }
        }

        /// Takes every segment and closes.
        func take() -> [Segment] {
            state.withLockedValue { state in
                state.closed = true
                defer { state.segments = [] }
                return state.segments
            }
        }
    }

    private struct Loop {
        var loop: any EventLoop
        var members: [Member]
        var pending: Pending?
    }

    private var loops: [Loop] = []
    /// Who subscribes (for `contains`).
    private var ids: Set<SessionID> = []

    /// Whether `id` is among the subscribers.
    func contains(_ id: SessionID) -> Bool { ids.contains(id) }

    /// Adds a subscriber (or replaces the one with the same session id), and seals the pending writes of every
    /// loop so that nothing committed from now on overtakes what the subscription already queued.
    mutating func insert(_ session: SessionRef) {
        remove(session.id)
        ids.insert(session.id)
        for index in loops.indices { loops[index].pending = nil }
        let channel = session.outbox.channel
        let member = Member(id: session.id, user: session.user, channel: channel)
        if let index = loops.firstIndex(where: { $0.loop === channel.eventLoop }) {
            loops[index].members.append(member)
        } else {
            loops.append(Loop(loop: channel.eventLoop, members: [member], pending: nil))
        }
    }

    /// Seals the pending writes of the loop `channel` is on: what is written to it directly now (an answer of the
    /// board's) is not overtaken by lines published after it, which would otherwise join a task queued before it.
    mutating func seal(loopOf channel: any Channel) {
        if let index = loops.firstIndex(where: { $0.loop === channel.eventLoop }) { loops[index].pending = nil }
    }

    /// Storage the member lists hold, in members (it shrinks as subscribers leave: `SparseCapacity`).
    var memberCapacity: Int { max(loops.reduce(0) { $0 + $1.members.capacity }, ids.capacity) }

    /// Removes a subscriber.
    mutating func remove(_ id: SessionID) {
        guard ids.remove(id) != nil else { return }
        ids.releaseSparseCapacity()
        for index in loops.indices {
            if let position = loops[index].members.firstIndex(where: { $0.id == id }) {
                loops[index].members.remove(at: position)
                loops[index].members.releaseSparseCapacity()
                if loops[index].members.isEmpty { loops.remove(at: index) }
                return
            }
        }
    }

    /// Removes every subscriber of `users`; returns their connections.
    mutating func remove(users: Set<UserID>) -> [any Channel] {
        var removed: [any Channel] = []
        for loop in loops {
            for member in loop.members where users.contains(member.user) {
                removed.append(member.channel)
                remove(member.id)
            }
        }
        return removed
    }

    /// Writes `shared` to every subscriber but `except`, or `personal[id]` (its pieces, in order) to those that
    /// have their own; each subscriber is flushed once per event-loop task.
    mutating func send(_ shared: ByteBuffer, personal: [SessionID: [ByteBuffer]] = [:], except: SessionID? = nil) {
        for index in loops.indices {
            let segment = Segment(members: loops[index].members, shared: shared, personal: personal, except: except)
            if let pending = loops[index].pending, pending.add(segment) { continue }
            let pending = Pending()
            _ = pending.add(segment)
            loops[index].pending = pending
            loops[index].loop.execute { Self.write(pending.take()) }
        }
    }

    /// Writes the segments in order, then flushes every connection written to once.
    private static func write(_ segments: [Segment]) {
        if segments.count == 1, let segment = segments.first {
            for member in segment.members where member.id != segment.except {
                write(segment, to: member)
                member.channel.flush()
            }
            return
        }
        var written: [ObjectIdentifier: any Channel] = [:]
        for segment in segments {
            for member in segment.members where member.id != segment.except {
                write(segment, to: member)
                written[ObjectIdentifier(member.channel)] = member.channel
            }
        }
        for channel in written.values { channel.flush() }
    }

    private static func write(_ segment: Segment, to member: Member) {
        if let pieces = segment.personal[member.id] {
            for piece in pieces where piece.readableBytes > 0 { member.channel.write(piece, promise: nil) }
        } else {
            member.channel.write(segment.shared, promise: nil)
        }
    }
}
