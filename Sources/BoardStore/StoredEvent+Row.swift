import BoardCore
import Foundation
import GRDB

/// One event's columns, encoded before the write transaction starts so that the writer spends its time on SQL.
struct EncodedEvent: Sendable {
    var board: String
    var seq: Int64
    var at: Int64
    var actor: String
    var clientID: String?
    var mut: Int64?
    var card: String?
    var kind: String
    var op: String
    var activity: String
    var inverse: String?
    var undoOf: Int64?
    /// The new board name when the event renames the board.
    var rename: String?

    /// Encodes `event` with `encoder`.
    init(_ event: StoredEvent, _ encoder: JSONEncoder, _ fast: (any EventJSON)? = nil) throws(StoreError) {
        let op: String
        let activity: String
        let inverse: String?
        if let fast {
            op = fast.op(event.op)
            activity = fast.activity(event.activity)
            inverse = event.inverse.map { fast.op($0) }
        } else {
            op = try StoreCoding.json(event.op, encoder, "op")
            activity = try StoreCoding.json(event.activity, encoder, "activity")
            inverse = try event.inverse.map { (o: Op) throws(StoreError) in try StoreCoding.json(o, encoder, "inverse") }
        }
        try self.init(event, op: op, activity: activity, inverse: inverse)
    }

    /// The columns of a change whose JSON texts the server already encoded (nothing is encoded again).
    init(_ change: EncodedChange) throws(StoreError) {
        try self.init(change.event, op: change.op, activity: change.activity, inverse: change.inverse)
    }

    /// The columns of `event` with its JSON texts.
    private init(_ event: StoredEvent, op: String, activity: String, inverse: String?) throws(StoreError) {
        board = event.board.rawValue
        seq = try StoreCoding.int64(event.seq, "seq")
        at = event.at.milliseconds
        actor = event.actor.rawValue
        clientID = event.clientID
        mut = try event.mut.map { (m: UInt64) throws(StoreError) in try StoreCoding.int64(m, "mut") }
        card = event.activity.card?.rawValue
        kind = event.op.kind
        self.op = op
        self.activity = activity
        self.inverse = inverse
        undoOf = try event.undoOf.map { (u: UInt64) throws(StoreError) in try StoreCoding.int64(u, "undo_of") }
        if case .renameBoard(let name) = event.op { rename = name }
    }

    /// The insert statement's arguments, in `SQLiteStore.insertEventSQL` order.
    var arguments: StatementArguments {
        [board, seq, at, actor, clientID, mut, card, kind, op, activity, inverse, undoOf]
    }
}

extension StoredEvent {
    /// The columns `init(row:)` reads, in order.
    static let columnsSQL = "board, seq, at, actor, client_id, mut, op, activity, inverse, undo_of"

    /// Decodes an event from a row selected with `columnsSQL`; `.corrupt` if a column holds the wrong thing.
    init(row: Row, _ decoder: JSONDecoder) throws(StoreError) {
        let mut: Int64? = try StoreCoding.column(row, 5)
        let inverse: String? = try StoreCoding.column(row, 8)
        let undoOf: Int64? = try StoreCoding.column(row, 9)
        self.init(
            board: BoardID(try StoreCoding.column(row, 0) as String),
            seq: try StoreCoding.uint64(try StoreCoding.column(row, 1), "seq"),
            at: Timestamp(milliseconds: try StoreCoding.column(row, 2)),
            actor: UserID(try StoreCoding.column(row, 3) as String),
            clientID: try StoreCoding.column(row, 4),
            mut: try mut.map { (m: Int64) throws(StoreError) in try StoreCoding.uint64(m, "mut") },
            op: try StoreCoding.decode(Op.self, try StoreCoding.column(row, 6), decoder, "op"),
            activity: try StoreCoding.decode(Activity.self, try StoreCoding.column(row, 7), decoder, "activity"),
            inverse: try inverse.map { (text: String) throws(StoreError) in
                try StoreCoding.decode(Op.self, text, decoder, "inverse")
            },
            undoOf: try undoOf.map { (u: Int64) throws(StoreError) in try StoreCoding.uint64(u, "undo_of") })
    }
}
