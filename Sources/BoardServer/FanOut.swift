import BoardWire
import NIOCore

/// A board's subscribers grouped by the event loop of their connection: one fan-out costs one task per event loop
/// (not one per subscriber), and each subscriber gets its lines in as few writes as the batch allows, with one flush.
///
/// The board actor builds a batch's delta lines into one buffer, once; every subscriber is handed that same buffer
/// (a reference, not a copy), so TLS encrypts the whole batch as one record per connection and the kernel sees one
/// write. The few subscribers that also sent ops in the batch get their own sequence of pieces — slices of the shared
/// buffer with their `ack` lines in between, so each ack still comes just before its delta.
struct FanOut {
    private struct Member {
        var id: SessionID
        var channel: any Channel
    }

    private struct Loop {
        var loop: any EventLoop
        var members: [Member]
    }

    private var loops: [Loop] = []

    /// Adds a subscriber (or replaces the one with the same session id).
    mutating func insert(_ session: SessionRef) {
        remove(session.id)
        let channel = session.outbox.channel
        let member = Member(id: session.id, channel: channel)
        if let index = loops.firstIndex(where: { $0.loop === channel.eventLoop }) {
            loops[index].members.append(member)
        } else {
            loops.append(Loop(loop: channel.eventLoop, members: [member]))
        }
    }

    /// Removes a subscriber.
    mutating func remove(_ id: SessionID) {
        for index in loops.indices {
            if let position = loops[index].members.firstIndex(where: { $0.id == id }) {
                loops[index].members.remove(at: position)
                if loops[index].members.isEmpty { loops.remove(at: index) }
                return
            }
        }
    }

    /// Writes `shared` to every subscriber but `except`, or `personal[id]` (its pieces, in order) to those that
    /// have their own; then flushes each once.
    func send(_ shared: ByteBuffer, personal: [SessionID: [ByteBuffer]] = [:], except: SessionID? = nil) {
        for group in loops {
            let members = group.members
            group.loop.execute {
                for member in members where member.id != except {
                    if let pieces = personal[member.id] {
                        for piece in pieces where piece.readableBytes > 0 { member.channel.write(piece, promise: nil) }
                    } else {
                        member.channel.write(shared, promise: nil)
                    }
                    member.channel.flush()
                }
            }
        }
    }
}
