import BoardCore

extension ServerMessage {
    /// Why a snapshot was sent.
    public enum SnapshotReason: String, Hashable, Sendable, Codable, CaseIterable {
        /// The subscribe had no `since`.
        case initial
        /// The log no longer reaches back to `since`, or `since` belongs to another epoch.
        case resync
    }

    /// `snapshot`: the whole board at `seq`; it replaces the client's replica of the board.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// The `subscribe` or `fetch` request's id.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// The seq the state is at.
        public var seq: UInt64
        /// The board's log lineage; it changes when the store is restored from a backup.
        public var epoch: String
        /// Why the snapshot was sent.
        public var reason: SnapshotReason?
        /// The board (BoardCore's snapshot JSON).
        public var state: Board

        /// Makes a snapshot message.
        public init(
            req: RequestID? = nil, board: BoardID, seq: UInt64, epoch: String, reason: SnapshotReason? = nil,
            state: Board
        ) {
            self.req = req
            self.board = board
            self.seq = seq
            self.epoch = epoch
            self.reason = reason
            self.state = state
        }
    }

    /// `subscribed`: the replica is at `seq`; every later delta of the board follows in order.
    public struct Subscribed: Hashable, Sendable, Codable {
        /// The `subscribe` request's id.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// The seq the client is now at (the last delta or snapshot sent).
        public var seq: UInt64
        /// The board's log lineage; send it back with `since` when resuming.
        public var epoch: String
        /// The board hash at `seq`: `sha256:` and the hex SHA-256 of BoardCore's `canonicalText()` (Protocol.md,
        /// "Board hash"). A replica at `seq` with the same hash has converged.
        public var hash: String?

        /// Makes the reply.
        public init(req: RequestID? = nil, board: BoardID, seq: UInt64, epoch: String, hash: String? = nil) {
            self.req = req
            self.board = board
            self.seq = seq
            self.epoch = epoch
            self.hash = hash
        }
    }
}
