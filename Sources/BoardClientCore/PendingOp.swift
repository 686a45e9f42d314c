import BoardCore
import BoardWire

/// An op this client sent (or queued) whose outcome has not arrived yet.
///
/// It stays in the replica's pending list, replayed on top of the confirmed board, until its own delta arrives, a
/// `noop` ack says it changed nothing, or a reject drops it.
public struct PendingOp: Hashable, Sendable, Codable {
    /// The board it changes.
    public var board: BoardID
    /// Its mutation id: unique and increasing per client id, kept across resends so the server applies it once.
    public var mut: UInt64
    /// The op, or an undo request.
    public var request: OpRequest
    /// The seq of its `ack`, once durable (its delta follows when subscribed).
    public var ackedSeq: UInt64?

    /// An op not yet acknowledged.
    public init(board: BoardID, mut: UInt64, request: OpRequest, ackedSeq: UInt64? = nil) {
        self.board = board
        self.mut = mut
        self.request = request
        self.ackedSeq = ackedSeq
    }

    enum CodingKeys: String, CodingKey {
        case board, mut
        case request = "op"
        case ackedSeq = "acked_seq"
    }

    /// The `op` line that sends it.
    public var message: ClientMessage {
        .op(ClientMessage.Mutation(board: board, mut: mut, op: request))
    }
}
