import NIOCore

/// What cork-load needs from a server line — its `type` and its top-level `seq` and `mut` — found in one pass over
/// the bytes instead of a JSON decode.
///
/// Every subscriber sees every delta, so this runs hundreds of thousands of times a second; a `JSONDecoder` per
/// delta would make the load generator the bottleneck. Lines that matter and are rare (`error`, `reject`,
/// `welcome`) are decoded in full with `LineCoder` by the caller. A line that is not a JSON object scans as
/// `.other` with no fields.
struct ServerLine: Sendable, Equatable {
    /// The message types the load loop reacts to.
    enum Kind: Sendable, Equatable {
        case delta, ack, reject, error, ping, welcome, subscribed, bye, other
    }

    /// The line's `type`.
    var kind: Kind = .other
    /// The top-level `seq`, when present and an integer.
    var seq: UInt64?
    /// The top-level `mut`, when present and an integer.
    var mut: UInt64?
    /// The publisher number in a top-level `client_id` of the form `…-p<N>` (cork-load's publishers).
    var publisher: Int?

    /// Scans a line as the transport delivers it (no terminator).
    init(_ buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytes { ServerLine(bytes: $0) }
    }

    /// Scans raw bytes.
    init(bytes: UnsafeRawBufferPointer) {
        var cursor = JSONCursor(bytes: bytes)
        var sawClientID = false
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: "{")) else { return }
        while true {
            cursor.skipSpace()
            if cursor.take(UInt8(ascii: "}")) { return }
            guard let key = cursor.string() else { return }
            cursor.skipSpace()
            guard cursor.take(UInt8(ascii: ":")) else { return }
            cursor.skipSpace()
            if cursor.matches(key, "type") {
                guard let value = cursor.string() else { return }
                kind = Self.kind(of: value, in: cursor)
            } else if cursor.matches(key, "seq"), let value = cursor.integer() {
                seq = value
            } else if cursor.matches(key, "mut"), let value = cursor.integer() {
                mut = value
            } else if cursor.matches(key, "client_id") {
                guard let value = cursor.string() else { return }
                publisher = Self.publisher(in: value, of: cursor)
                sawClientID = true
            } else {
                guard cursor.skipValue() else { return }
            }
            // Everything this scan reports is known: stop before the op and activity objects (corkd writes the
            // envelope's fields first, so a delta is read up to its `op`; another key order only costs the full scan).
            if seq != nil, mut != nil, kind == .ack || (kind == .delta && sawClientID) { return }
            cursor.skipSpace()
            if cursor.take(UInt8(ascii: ",")) { continue }
            return
        }
    }

    /// `N` when the string ends in `-p` and digits.
    private static func publisher(in value: Range<Int>, of cursor: JSONCursor) -> Int? {
        var index = value.upperBound
        var number = 0
        var scale = 1
        while index > value.lowerBound, cursor.bytes[index - 1] >= 0x30, cursor.bytes[index - 1] <= 0x39 {
            index -= 1
            number += Int(cursor.bytes[index] - 0x30) * scale
            scale *= 10
            if scale > 1_000_000_000 { return nil }
        }
        guard index < value.upperBound, index - value.lowerBound >= 2, cursor.bytes[index - 1] == UInt8(ascii: "p"),
            cursor.bytes[index - 2] == UInt8(ascii: "-")
        else { return nil }
        return number
    }

    private static func kind(of value: Range<Int>, in cursor: JSONCursor) -> Kind {
        if cursor.matches(value, "delta") { return .delta }
        if cursor.matches(value, "ack") { return .ack }
        if cursor.matches(value, "ping") { return .ping }
        if cursor.matches(value, "reject") { return .reject }
        if cursor.matches(value, "error") { return .error }
        if cursor.matches(value, "welcome") { return .welcome }
        if cursor.matches(value, "subscribed") { return .subscribed }
        if cursor.matches(value, "bye") { return .bye }
        return .other
    }
}
