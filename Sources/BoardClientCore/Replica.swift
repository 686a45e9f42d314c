import BoardCore
import BoardWire

/// A client's copy of one board: the confirmed board at the last server seq, plus its own pending ops on top.
///
/// Pure: no I/O, no clock. What a UI shows is ``view``, the pending ops replayed on the confirmed board with the same
/// reducer the server runs (Protocol.md, "Sync model"). A foreign delta lands on the confirmed board and the pending
/// ops are replayed on top, so a field the user changed and is still waiting for keeps the user's value until the
/// server has ordered it (Figma's rule): the echo of an older value never flickers through.
///
/// Work per input is in proportion to the change: a delta is applied to the confirmed board in place (no copy of
/// the card table while nothing else holds the board), and with no pending ops the view is the confirmed board
/// itself. Each input reports what it changed as ``BoardChanges``, found from the ops, never by comparing boards.
public struct Replica: Sendable {
    /// The board this replica follows.
    public let boardID: BoardID
    /// Who this client is (the actor of its own pending ops).
    public private(set) var user: UserID
    /// The board as the server has confirmed it, at ``seq``; nil before the first snapshot.
    public private(set) var confirmed: Board?
    /// The last seq applied to the confirmed board.
    public private(set) var seq: UInt64 = 0
    /// The log lineage ``seq`` belongs to (from the last snapshot or `subscribed`).
    public private(set) var epoch: String?
    /// This client's ops not yet complete, in mutation order.
    public private(set) var pending: [PendingOp] = []
    /// The confirmed board with the pending ops replayed on top: what to show.
    public private(set) var view: Board?
    /// Deltas that arrived ahead of a gap, by seq, until the gap is filled.
    private var held: [UInt64: ServerMessage.Delta] = [:]
    /// Confirmed boards shared with the other clients of this process, if any (``SharedBoards``).
    public let shared: SharedBoards?

    /// An empty replica; it fills on the first snapshot.
    public init(board: BoardID, user: UserID, shared: SharedBoards? = nil) {
        self.boardID = board
        self.user = user
        self.shared = shared
    }

    /// Sets who this client is (known only after `welcome`).
    public mutating func setUser(_ user: UserID) {
        guard user != self.user else { return }
        self.user = user
        rebuildView()
    }

    /// Whether a snapshot has been loaded.
    public var isLoaded: Bool { confirmed != nil }

    /// Whether ``view`` is the confirmed board itself: no pending op changes it (an undo request waits for its
    /// delta, so it changes nothing before).
    public var showsConfirmed: Bool {
        !pending.contains { if case .op = $0.request { true } else { false } }
    }

    /// How many deltas are held aside while a gap is being fetched.
    public var heldCount: Int { held.count }

    /// The seqs still missing before the held deltas, if any.
    public var gap: ClosedRange<UInt64>? {
        guard let lowest = held.keys.min(), lowest > seq + 1 else { return nil }
        return (seq + 1)...(lowest - 1)
    }

    // MARK: - Server input

    /// Replaces the confirmed board with a snapshot. Pending ops acknowledged at or before its seq are in it and are
    /// dropped; the others are replayed on top. Held deltas up to the snapshot's seq are discarded.
    ///
    /// A snapshot of another epoch (the store was restored from a backup) shares no seqs with the old one: held
    /// deltas are dropped and acks forgotten (an acked op may not have survived the restore; resending it is safe,
    /// the server answers an applied mut with its ack).
    public mutating func load(_ snapshot: Board, seq: UInt64, epoch: String) -> [PendingOp] {
        var board = snapshot
        board.seq = seq
        if let shared {
            // Another client's equal board, so this snapshot's own copy is let go; or this one, for the others.
            if let same = shared.board(boardID, epoch: epoch, seq: seq) { board = same } else { shared.offer(board, epoch: epoch) }
        }
        if let old = self.epoch, old != epoch {
            held = [:]
            for i in pending.indices { pending[i].ackedSeq = nil }
        }
        confirmed = board
        self.seq = seq
        self.epoch = epoch
        held = held.filter { $0.key > seq }
        let done = pending.filter { ($0.ackedSeq ?? .max) <= seq }
        pending.removeAll { ($0.ackedSeq ?? .max) <= seq }
        rebuildView()
        return done
    }

    /// Records the epoch `subscribed` named.
    public mutating func subscribed(epoch: String) {
        self.epoch = epoch
    }

    /// What ``receive(_:)`` did with a delta.
    public struct Received: Sendable {
        /// The deltas applied, in seq order (the one received and any held ones it released).
        public var applied: [ServerMessage.Delta] = []
        /// Own pending ops completed by those deltas, each with the seq of its delta.
        public var completed: [(op: PendingOp, seq: UInt64)] = []
        /// A gap to fetch (`from` … `to`), when the delta came too early.
        public var gap: ClosedRange<UInt64>?
        /// Set when a delta did not apply to the confirmed board: the replica has diverged and needs a snapshot.
        public var diverged: Rejection?
        /// What changed in the view (the applied deltas' subjects, and the pending ops' when there are any).
        public var changes: BoardChanges = .nothing
        /// The delta was already applied (a duplicate) or belongs to another board.
        public var ignored: Bool { applied.isEmpty && gap == nil && diverged == nil }
    }

    /// Takes one delta: applies it (and any held ones it releases), ignores a duplicate, or holds it and reports
    /// the gap before it.
    public mutating func receive(_ delta: ServerMessage.Delta) -> Received {
        var result = Received()
        guard delta.board == boardID, confirmed != nil else { return result }
        if delta.seq <= seq { return result }
        if delta.seq > seq + 1 {
            held[delta.seq] = delta
            let to = (held.keys.min() ?? delta.seq) - 1
            result.gap = (seq + 1)...to
            return result
        }
        var next: ServerMessage.Delta? = delta
        // The view shares the confirmed board's storage when nothing is pending: let go of it so the delta applies
        // in place.
        view = nil
        while let current = next {
            let changes = BoardChanges.of(current.op, on: confirmed!)
            if let failure = applyConfirmed(current) {
                result.diverged = failure
                break
            }
            result.changes = result.changes.union(changes)
            result.applied.append(current)
            if current.clientID != nil, let mut = current.mut, let index = ownPending(mut: mut, delta: current) {
                result.completed.append((pending.remove(at: index), current.seq))
            }
            next = held.removeValue(forKey: seq + 1)
        }
        if let lowest = held.keys.min(), lowest > seq + 1 { result.gap = (seq + 1)...(lowest - 1) }
        if !result.applied.isEmpty { result.changes = result.changes.union(pendingChanges) }
        rebuildView()
        return result
    }

    /// The index of the pending op `delta` completes: same user, same client id, same mut.
    private func ownPending(mut: UInt64, delta: ServerMessage.Delta) -> Int? {
        guard delta.actor == user, delta.clientID == clientID else { return nil }
        return pending.firstIndex { $0.mut == mut }
    }

    /// The client id this client's deltas carry; set by the owner after `welcome`.
    public var clientID: ClientID?

    /// Applies one delta to the confirmed board, in place, with the delta's own context and the role `owner`. A
    /// refused delta leaves the board as it was (the reducer validates before it writes). With ``shared`` boards,
    /// the board another client already made by applying this delta is taken instead, and a board made here is
    /// offered to the others.
    private mutating func applyConfirmed(_ delta: ServerMessage.Delta) -> Rejection? {
        guard confirmed != nil else { return Rejection(.notFound, "no board loaded") }
        if let shared, let epoch, let same = shared.board(boardID, epoch: epoch, seq: delta.seq) {
            confirmed = same
            seq = delta.seq
            return nil
        }
        let context = ApplyContext(actor: delta.actor, role: .owner, now: delta.at, seq: delta.seq)
        switch confirmed!.apply(delta.op, context: context) {
        case .success:
            confirmed!.seq = delta.seq
            seq = delta.seq
            if let shared, let epoch { shared.offer(confirmed!, epoch: epoch) }
            return nil
        case .failure(let rejection):
            return rejection
        }
    }

    /// What the pending ops touch: a rebase may change how they show.
    private var pendingChanges: BoardChanges {
        guard let board = confirmed else { return .nothing }
        var changes = BoardChanges.nothing
        for op in pending {
            guard case .op(let change) = op.request else { continue }
            changes = changes.union(BoardChanges.of(change, on: board))
        }
        return changes
    }

    /// What taking `op` off the pending list changes in the view.
    public func changes(removing op: PendingOp) -> BoardChanges {
        guard case .op(let change) = op.request, let board = confirmed else { return .nothing }
        return BoardChanges.of(change, on: board)
    }

    /// Records an `ack`. Returns the op when it is now complete: a `noop`, or its delta already applied (an ack
    /// answering a resend after a resume), or `subscribed` is false so no delta will come.
    public mutating func acknowledge(mut: UInt64, seq ackSeq: UInt64, noop: Bool, subscribed: Bool) -> PendingOp? {
        guard let index = pending.firstIndex(where: { $0.mut == mut }) else { return nil }
        if noop || !subscribed || (isLoaded && ackSeq <= seq) {
            let op = pending.remove(at: index)
            rebuildView()
            return op
        }
        pending[index].ackedSeq = ackSeq
        return nil
    }

    /// Drops a rejected op and replays the rest (the UI rolls back). Returns the op, if it was pending.
    public mutating func reject(mut: UInt64) -> PendingOp? {
        guard let index = pending.firstIndex(where: { $0.mut == mut }) else { return nil }
        let op = pending.remove(at: index)
        rebuildView()
        return op
    }

    // MARK: - Local input

    /// Adds an op this client is sending and shows it at once (optimistically).
    ///
    /// Returns the reducer's verdict on the current view: a rejection here means the server will almost surely
    /// refuse it too, but the op stays queued either way; the server decides.
    @discardableResult
    public mutating func enqueue(_ op: PendingOp, now: Timestamp) -> Rejection? {
        pending.append(op)
        localNow = now
        guard case .op(let change) = op.request, view != nil else { return nil }
        // In place: the view's storage is copied once when it stops being the confirmed board's, not per op.
        let context = localContext(view!, now: now, offset: UInt64(pending.count))
        switch view!.apply(change, context: context) {
        case .success: return nil
        case .failure(let rejection): return rejection
        }
    }

    /// Restores pending ops (from a journal after a restart) without showing anything twice.
    public mutating func restore(_ ops: [PendingOp]) {
        pending = ops.filter { $0.board == boardID }.sorted { $0.mut < $1.mut }
        rebuildView()
    }

    /// The time used for optimistic application of pending ops; the server's time replaces it.
    public var localNow: Timestamp = Timestamp(milliseconds: 0)

    /// Replays the pending ops on the confirmed board. Ops that do not apply are skipped (the server will refuse
    /// them, and the reject removes them); undo requests wait for their delta (only the server knows the inverse).
    private mutating func rebuildView() {
        guard var board = confirmed else {
            view = nil
            return
        }
        view = nil
        for (offset, op) in pending.enumerated() {
            guard case .op(let change) = op.request else { continue }
            _ = board.apply(change, context: localContext(board, now: localNow, offset: UInt64(offset + 1)))
        }
        view = board
    }

    /// The context for an optimistic apply: this user with their role on the board, at a provisional seq.
    private func localContext(_ board: Board, now: Timestamp, offset: UInt64) -> ApplyContext {
        let role = board.members[user]?.role ?? .editor
        return ApplyContext(actor: user, role: role, now: now, seq: seq + offset)
    }
}
