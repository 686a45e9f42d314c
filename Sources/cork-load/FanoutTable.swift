import Synchronization

/// Fan-out latency without a lock: op sent → its delta received by every subscriber of its board.
///
/// Each publisher has a ring of slots indexed by `mut`. The publisher fills a slot just before it writes the op (when
/// it was sent, how many subscribers must see it). Every subscriber that receives the op's delta — whose
/// `client_id` names the publisher and whose `mut` names the slot — raises the slot's latest arrival and counts
/// itself off; the one that counts it to zero records the fan-out latency in its own histogram. Per delivery that is
/// one acquire load, one atomic max and one atomic decrement on a slot only that op's subscribers touch.
///
/// A slot is reused after `capacity` ops of the same publisher; a subscriber still that far behind finds another
/// `mut` in it and counts an overrun instead of a latency (the report shows how many).
final class FanoutTable: Sendable {
    struct Slot: ~Copyable {
        let mut = Atomic<UInt64>(0)
        let sentNs = Atomic<UInt64>(0)
        let latestNs = Atomic<UInt64>(0)
        let remaining = Atomic<Int>(0)
    }

    /// Slots per publisher (a power of two).
    static let capacity = 16_384
    private static let mask = UInt64(capacity - 1)

    let publishers: Int
    nonisolated(unsafe) private let slots: UnsafeMutablePointer<Slot>

    init(publishers: Int) {
        self.publishers = publishers
        let count = max(1, publishers) * Self.capacity
        slots = .allocate(capacity: count)
        for index in 0..<count { (slots + index).initialize(to: Slot()) }
    }

    deinit {
        slots.deinitialize(count: max(1, publishers) * Self.capacity)
        slots.deallocate()
    }

    /// Publisher `publisher` is about to send `mut`, which `subscribers` subscribers must receive.
    func sending(publisher: Int, mut: UInt64, at now: UInt64, subscribers: Int) {
        guard publisher < publishers, subscribers > 0 else { return }
        let slot = slots + (publisher * Self.capacity + Int(mut & Self.mask))
        slot.pointee.mut.store(0, ordering: .relaxed)
        slot.pointee.sentNs.store(now, ordering: .relaxed)
        slot.pointee.latestNs.store(0, ordering: .relaxed)
        slot.pointee.remaining.store(subscribers, ordering: .relaxed)
        slot.pointee.mut.store(mut, ordering: .releasing)
    }

    /// What a delivery meant for the op's fan-out.
    enum Arrival: Equatable {
        /// Other subscribers have not received it yet.
        case pending
        /// This was the last subscriber: every one has it; the op's fan-out latency and when it was sent.
        case complete(latencyNs: UInt64, sentNs: UInt64)
        /// The slot holds another op: this subscriber is more than `capacity` ops behind that publisher.
        case overrun
    }

    /// A subscriber received the delta of `publisher`'s op `mut` at `now`.
    func received(publisher: Int, mut: UInt64, at now: UInt64) -> Arrival {
        guard publisher < publishers else { return .overrun }
        let slot = slots + (publisher * Self.capacity + Int(mut & Self.mask))
        guard slot.pointee.mut.load(ordering: .acquiring) == mut else { return .overrun }
        slot.pointee.latestNs.max(now, ordering: .relaxed)
        guard slot.pointee.remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return .pending }
        let sent = slot.pointee.sentNs.load(ordering: .relaxed)
        let latest = slot.pointee.latestNs.load(ordering: .relaxed)
        return .complete(latencyNs: latest >= sent ? latest - sent : 0, sentNs: sent)
    }
}
