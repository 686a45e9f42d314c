import BoardCore

/// Writes server lines as compact JSON bytes without Foundation: the per-delta hot path.
///
/// A `delta` is encoded once and the same bytes go to every subscriber, so `deltaLine` runs once per committed
/// change. It writes the envelope, the op (through `Op.writeFields(to:)`) and the activity field by field (`LineWriter+Delta.swift`, mirroring their
/// `Encodable` conformances; about 50 times cheaper than `JSONEncoder`, 10 times cheaper than going through the
/// `Encoder` protocol). `encode` handles any other `Encodable` value through `CompactJSONEncoder`. Keys come in
/// encode order, not sorted (key order carries no meaning on the wire), except the keys of dictionaries
/// (`activity.changes`, JSON objects inside values), which are sorted: Swift's dictionary order differs from one
/// process to the next, and the same change must be the same bytes on every node and after every restart (a node
/// catching up re-encodes another node's change from the store).
/// Strings are escaped by `JSONEscaping` (BoardCore), the project's one escaper: `"`, `\` and the control characters
/// below U+0020 (as `\n`, `\r`, `\t` or `\u00XX`); everything else, U+007F and U+2028 included, is written raw, so
/// a line never holds a raw newline except its terminator.
public enum LineWriter {
    /// A `delta` line, `{"type":"delta",…}` followed by one `\n`; the same JSON (as a tree) as
    /// `LineCoder().encodeLine(.delta(ServerMessage.Delta(…)))`.
    public static func deltaLine(
        board: BoardID, seq: UInt64, at: Timestamp, actor: UserID, clientID: ClientID?, mut: UInt64?, op: Op,
        activity: Activity
    ) -> [UInt8] {
        let writer = JSONByteWriter(capacity: initialCapacity)
        writer.writeDeltaObject(
            board: board, seq: seq, at: at, actor: actor, clientID: clientID, mut: mut, op: op, activity: activity)
        writer.put(0x0A)
        return writer.bytes
    }

    /// An `ack` line, `{"type":"ack","board":…,"mut":…,"seq":…}` (with `"noop":true` when set) and its `\n`: the
    /// same JSON as `LineCoder().encodeLine(.ack(…))`, written by hand because every op gets one.
    public static func ackLine(board: BoardID, mut: UInt64, seq: UInt64, noop: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + board.rawValue.utf8.count)
        out.append(contentsOf: #"{"type":"ack","board":"#.utf8)
        appendString(board.rawValue, to: &out)
        out.append(contentsOf: #","mut":"#.utf8)
        out.append(contentsOf: String(mut).utf8)
        out.append(contentsOf: #","seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        if noop { out.append(contentsOf: #","noop":true"#.utf8) }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// A `reject` line without `current` (rate limits, membership, store failures), and its `\n`: the same JSON as
    /// `LineCoder().encodeLine(.reject(…))`, written by hand because a flooder's every op gets one and refusing
    /// must cost far less than applying.
    public static func rejectLine(
        board: BoardID, mut: UInt64, code: RejectCode, message: String, retryAfterMs: UInt64? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96 + board.rawValue.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"type":"reject","board":"#.utf8)
        appendString(board.rawValue, to: &out)
        out.append(contentsOf: #","mut":"#.utf8)
        out.append(contentsOf: String(mut).utf8)
        out.append(contentsOf: #","code":"#.utf8)
        appendString(code.rawValue, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendString(message, to: &out)
        if let retryAfterMs {
            out.append(contentsOf: #","retry_after_ms":"#.utf8)
            out.append(contentsOf: String(retryAfterMs).utf8)
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// An op as compact JSON, the same tree as its `Encodable` conformance (the store keeps ops as JSON text).
    public static func opJSON(_ op: Op) -> String {
        let writer = JSONByteWriter(capacity: 256)
        writer.writeOp(op)
        return writer.text
    }

    /// An activity record as compact JSON, the same tree as its `Encodable` conformance.
    public static func activityJSON(_ activity: Activity) -> String {
        let writer = JSONByteWriter(capacity: initialCapacity)
        writer.writeActivity(activity)
        return writer.text
    }

    /// Any `Encodable` value as compact JSON (no trailing newline); see `CompactJSONEncoder`.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try CompactJSONEncoder().encode(value)
    }

    /// Room reserved for a line up front: most deltas fit without growing.
    static let initialCapacity = 512

    /// Appends `s` as a JSON string literal (quotes included), escaped as on the wire.
    static func appendString(_ s: String, to out: inout [UInt8]) {
        let writer = JSONByteWriter(capacity: s.utf8.count + 2)
        writer.writeString(s)
        writer.withWritten { out.append(contentsOf: $0) }
    }
}

/// Encodes any `Encodable` value as compact JSON bytes, written straight into a `[UInt8]` in encode order.
///
/// Output matches `JSONEncoder` as a JSON tree (not byte for byte: keys are not sorted, `/` is not escaped). It
/// supports everything the wire uses: strings, booleans, every integer type, nil, nested keyed and unkeyed
/// containers, dictionaries and `superEncoder`. Floating-point values throw `EncodingError.invalidValue`: the
/// protocol has no floats. `userInfo` is always empty.
public struct CompactJSONEncoder: Sendable {
    /// Makes an encoder.
    public init() {}

    /// `value` as compact JSON (no trailing newline).
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var out: [UInt8] = []
        try encode(value, appendingTo: &out)
        return out
    }

    /// Appends `value` as compact JSON to `out`; on error, `out` is left as it was.
    public func encode<T: Encodable>(_ value: T, appendingTo out: inout [UInt8]) throws {
        let writer = JSONByteWriter(capacity: LineWriter.initialCapacity)
        try writer.encodeTopLevel(value)
        writer.withWritten { out.append(contentsOf: $0) }
    }
}

extension JSONByteWriter {
    /// The `delta` object, fields in `ServerMessage.Delta`'s order, `client_id` and `mut` only when present.
    /// Returns where the op's and the activity's JSON values lie in the output.
    @discardableResult func writeDeltaObject(
        board: BoardID, seq: UInt64, at: Timestamp, actor: UserID, clientID: ClientID?, mut: UInt64?, op: Op,
        activity: Activity
    ) -> (op: Range<Int>, activity: Range<Int>) {
        put(#"{"type":"delta","board":"#)
        writeString(board.rawValue)
        put(#","seq":"#)
        writeUnsigned(seq)
        put(#","at":"#)
        writeSigned(at.milliseconds)
        put(#","actor":"#)
        writeString(actor.rawValue)
        if let clientID {
            put(#","client_id":"#)
            writeString(clientID.rawValue)
        }
        if let mut {
            put(#","mut":"#)
            writeUnsigned(mut)
        }
        put(#","op":"#)
        let opStart = count
        writeOp(op)
        let opEnd = count
        put(#","activity":"#)
        let activityStart = count
        // Without `names`: every receiver holds the board of that moment (Protocol.md, "Activity records").
        writeActivity(activity, withNames: false)
        let activityEnd = count
        put(UInt8(ascii: "}"))
        return (opStart..<opEnd, activityStart..<activityEnd)
    }
}
