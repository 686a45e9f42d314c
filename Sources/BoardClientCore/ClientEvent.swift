import BoardCore
import BoardWire

/// One thing a UI or bot hears from a ``BoardClient``, in order. The client's own types: no wire envelope
/// (`ServerMessage`) inside, so a UI imports `BoardClient` and `BoardCore` only.
///
/// Indirect, so an event is one pointer wide: events wait in `AsyncStream` buffers, which keep the capacity of
/// their longest queue, and a client per browser tab (a server's web sessions) saw hundreds of presence events
/// queue in a crowd's arrival; at the size of an inline `BoardUpdate` that kept about 40 KB per tab.
public indirect enum ClientEvent: Sendable {
    /// The connection changed state.
    case connection(ConnectionState)
    /// The board shown changed: the new snapshot and the diff from the previous one.
    case board(BoardUpdate)
    /// A change was committed (a delta applied to the confirmed board): its activity record, chat included.
    case activity(ActivityEvent)
    /// Who is on the board changed.
    case presence(PresenceEvent)
    /// An op of this client was rejected; the board has rolled back (a `.board` update follows or came first).
    case rejected(RejectedOp)
    /// The server reported a problem that did not close the connection.
    case serverError(WireError)
    /// The user's inbox changed (feature `inbox`): a new entry, or entries read on one of their clients. It comes
    /// whatever board is followed (the inbox is the user's, across boards).
    case inbox(InboxEvent)
}

/// A change of the user's inbox, pushed by the server to each of their sessions.
public enum InboxEvent: Hashable, Sendable {
    /// A new entry, and how many entries are unread now (this one included).
    case entry(InboxEntry, unread: Int)
    /// Entries were marked read (on this client or another of the user's), and how many are unread now.
    case read(ids: [Int64], unread: Int)

    /// Unread entries in the whole inbox after the change.
    public var unread: Int {
        switch self {
        case .entry(_, let unread), .read(_, let unread): unread
        }
    }
}

/// The state of the connection, as a UI status line shows it.
public enum ConnectionState: Hashable, Sendable {
    /// Dialling an endpoint.
    case connecting(endpoint: String)
    /// Authenticated and subscribed (or just authenticated, with no board).
    case connected(endpoint: String, user: UserID)
    /// Waiting before the next attempt; ops queue locally meanwhile.
    case reconnecting(in: Duration, lastError: String)
    /// Stopped for good; `error` is why (nil when the owner stopped it).
    case stopped(error: ClientError?)
}

/// The board to show changed: the board, why, and which cards and columns changed.
///
/// Cheap to make: the snapshot and a diff are computed only when a caller asks for them (``snapshot``,
/// ``diff(from:)``), each in time proportional to the board.
public struct BoardUpdate: Sendable {
    /// Why the board changed.
    public enum Cause: Hashable, Sendable {
        /// A snapshot replaced the replica (first load or resync).
        case snapshot
        /// Committed changes arrived (some maybe this client's own).
        case deltas
        /// This client queued an op (shown optimistically).
        case local
        /// An op of this client was rejected and rolled back.
        case rollback
    }

    /// The whole board as shown (confirmed state + pending ops), archived cards included.
    public var board: Board
    /// Why.
    public var cause: Cause
    /// Which cards and columns changed since the previous update (``BoardChanges/everything`` after a snapshot).
    public var changes: BoardChanges
    /// Cards whose change came from another user in this update (for highlighting).
    public var changedByOthers: Set<CardID>
    /// Whether ``board`` is the board as the server confirmed it at its seq, with no pending op of this client on
    /// top (every client of the board that is in this state shows the same board).
    public var isConfirmed: Bool
    /// The newest mutation id this client had given out when the update was made: ``board`` reflects every op it
    /// submitted up to it (shown while pending, gone if refused). A UI that shows its own ops before the client's
    /// update does (keys typed faster than updates arrive) re-applies only those after it.
    public var throughMut: UInt64

    /// An update (the client makes these; UIs' tests may too).
    public init(
        board: Board, cause: Cause, changes: BoardChanges = .everything, changedByOthers: Set<CardID> = [],
        isConfirmed: Bool = false, throughMut: UInt64 = 0
    ) {
        self.board = board
        self.cause = cause
        self.changes = changes
        self.changedByOthers = changedByOthers
        self.isConfirmed = isConfirmed
        self.throughMut = throughMut
    }

    /// The columns and unarchived cards as shown. Computed on each call, in time proportional to the board.
    public var snapshot: BoardSnapshot { board.snapshot() }

    /// The diff from `previous` (a snapshot the caller kept; nil for an empty board) to ``snapshot``.
    public func diff(from previous: BoardSnapshot?) -> SnapshotDiff {
        SnapshotDiff(from: previous ?? BoardSnapshot(seq: 0, columns: []), to: snapshot)
    }
}

/// A committed change, for the feed, history and bots.
public struct ActivityEvent: Sendable {
    /// The activity record.
    public var activity: Activity
    /// The op as applied.
    public var op: Op
    /// Whether this client made it.
    public var isOwn: Bool
    /// The board right after the change (for card numbers, titles and column names).
    public var board: Board

    /// An activity event.
    public init(activity: Activity, op: Op, isOwn: Bool, board: Board) {
        self.activity = activity
        self.op = op
        self.isOwn = isOwn
        self.board = board
    }
}

/// A change in who is on the board.
public struct PresenceEvent: Sendable {
    /// Everyone present now, by session. A client that does not keep presence (``ClientSession/Settings/keepsPresence``
    /// false) fills it only in the `.state` event.
    public var sessions: [SessionID: PresenceEntry]
    /// What changed: a full state, one entry, or a session that left.
    public var change: Change

    /// A presence event.
    public init(sessions: [SessionID: PresenceEntry], change: Change) {
        self.sessions = sessions
        self.change = change
    }

    /// What changed.
    public enum Change: Sendable {
        /// The full list after subscribing.
        case state
        /// One session's presence.
        case updated(PresenceEntry)
        /// A session left.
        case left(session: SessionID, user: UserID)
    }
}

/// An op of this client that the server refused.
public struct RejectedOp: Sendable {
    /// The op.
    public var op: PendingOp
    /// The server's reject (code, message, `current`).
    public var reject: OpRejection

    /// A rejected op.
    public init(op: PendingOp, reject: OpRejection) {
        self.op = op
        self.reject = reject
    }
}

/// How an op ended.
public enum OpOutcome: Hashable, Sendable {
    /// Committed at `seq` (and, when subscribed, applied to the replica).
    case applied(seq: UInt64)
    /// It changed nothing; the board was at `seq`.
    case noop(seq: UInt64)
    /// Refused; nothing changed.
    case rejected(OpRejection)
}
