import BoardCore

/// Reads the frequent client messages (`op`, `presence`, `ping`, `pong`) straight off a `JSONTape`, field by
/// field: keys are compared as bytes, no `Decoder`, no containers, no `String` but the values kept.
///
/// It answers only when it is sure to answer exactly as the reference path (`LineCoder.decodeClientReference`):
/// any field missing, of the wrong JSON type or out of range, an escaped key, an unknown type or kind, a value its
/// Swift type cannot hold, a message that fails validation — it gives up (`Unsure`) and the line goes down the
/// general path (`TapeDecoder`, then the reference for the error). It only ever lives inside the `withUnsafe…`
/// scope of the line's bytes.
struct TapeReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let nodes: [JSONTape.Node]
    let limits: JSONPreScan.Limits

    /// The reader gives up on this line: the general path decides.
    struct Unsure: Error {}

    /// The message of the line whose root object is node 0, or nil when the reader is unsure.
    func message() -> ClientMessage? {
        guard let message = try? readMessage(), message.validationProblem == nil else { return nil }
        return message
    }

    private func readMessage() throws(Unsure) -> ClientMessage {
        let root = 0
        guard nodes.first?.kind == .object else { throw Unsure() }
        try checkKeys(root)
        let type = try value("type", in: root)
        if try equals(type, "op") {
            return .op(
                ClientMessage.Mutation(
                    board: try id("board", in: root), mut: try integer(try value("mut", in: root)),
                    op: try opRequest(try value("op", in: root))))
        }
        if try equals(type, "presence") {
            guard let state = PresenceActivity(rawValue: try string(try value("state", in: root))) else {
                throw Unsure()
            }
            return .presence(
                ClientMessage.Presence(
                    board: try id("board", in: root), state: state, card: try optionalID("card", in: root),
                    column: try optionalID("column", in: root),
                    index: try optionalInt("index", in: root), away: try optionalBool("away", in: root),
                    awayNote: try optionalString("away_note", in: root)))
        }
        if try equals(type, "ping") { return .ping(Heartbeat(req: try requestID(in: root))) }
        if try equals(type, "pong") { return .pong(Heartbeat(req: try requestID(in: root))) }
        throw Unsure()
    }

    /// `req`: absent or null, a string of 1–64 bytes, or an integer (the pre-scan bounds it to 2^53 − 1).
    private func requestID(in object: Int) throws(Unsure) -> RequestID? {
        guard let index = try optionalValue("req", in: object) else { return nil }
        if nodes[index].kind == .number { return .int(nodes[index].value) }
        let text = try string(index)
        guard !text.utf8.isEmpty, text.utf8.count <= RequestID.maxStringBytes else { throw Unsure() }
        return .string(text)
    }

    // MARK: Objects

    /// Gives up on an object with an escaped key: a decoder matches keys after unescaping them.
    func checkKeys(_ object: Int) throws(Unsure) {
        var i = object + 1
        let end = nodes[object].next
        while i < end {
            if nodes[i].escaped { throw Unsure() }
            i = nodes[i + 1].next
        }
    }

    /// The node of the value under `name` in `object`, or nil when the key is absent.
    func find(_ name: StaticString, in object: Int) -> Int? {
        let count = name.utf8CodeUnitCount
        var i = object + 1
        let end = nodes[object].next
        while i < end {
            let key = nodes[i]
            if key.end - key.start - 2 == count, memcmp(bytes.baseAddress! + key.start + 1, name.utf8Start, count) == 0 {
                return i + 1
            }
            i = nodes[i + 1].next
        }
        return nil
    }

    /// The value under `name`, which must be there (null included).
    func value(_ name: StaticString, in object: Int) throws(Unsure) -> Int {
        guard let index = find(name, in: object) else { throw Unsure() }
        return index
    }

    /// The value under `name`, or nil when it is absent or null (as `decodeIfPresent` reads it).
    func optionalValue(_ name: StaticString, in object: Int) throws(Unsure) -> Int? {
        guard let index = find(name, in: object), nodes[index].kind != .null else { return nil }
        return index
    }

    /// An object's node (an op), with its keys checked.
    func object(_ index: Int) throws(Unsure) -> Int {
        guard nodes[index].kind == .object else { throw Unsure() }
        try checkKeys(index)
        return index
    }

    // MARK: Values

    /// Whether a string node spells `name` (compared as bytes; an escaped string is unsure).
    func equals(_ index: Int, _ name: StaticString) throws(Unsure) -> Bool {
        let node = nodes[index]
        guard node.kind == .string, !node.escaped else { throw Unsure() }
        let count = name.utf8CodeUnitCount
        return node.end - node.start - 2 == count && memcmp(bytes.baseAddress! + node.start + 1, name.utf8Start, count) == 0
    }

    /// A string node's text.
    func string(_ index: Int) throws(Unsure) -> String {
        guard nodes[index].kind == .string else { throw Unsure() }
        return TapeReader.text(of: nodes[index], in: bytes, limits: limits)
    }

    /// A number node's value (non-negative and at most 2^53 − 1: the pre-scan saw to it).
    func integer(_ index: Int) throws(Unsure) -> UInt64 {
        guard nodes[index].kind == .number else { throw Unsure() }
        return nodes[index].value
    }

    func bool(_ index: Int) throws(Unsure) -> Bool {
        switch nodes[index].kind {
        case .true: return true
        case .false: return false
        default: throw Unsure()
        }
    }

    /// The required string under `name`.
    func string(_ name: StaticString, in object: Int) throws(Unsure) -> String {
        try string(try value(name, in: object))
    }

    /// The string under `name`, nil when absent or null.
    func optionalString(_ name: StaticString, in object: Int) throws(Unsure) -> String? {
        guard let index = try optionalValue(name, in: object) else { return nil }
        return try string(index)
    }

    /// The required integer under `name`.
    func int(_ name: StaticString, in object: Int) throws(Unsure) -> Int { Int(try integer(try value(name, in: object))) }

    /// The integer under `name`, nil when absent or null.
    func optionalInt(_ name: StaticString, in object: Int) throws(Unsure) -> Int? {
        guard let index = try optionalValue(name, in: object) else { return nil }
        return Int(try integer(index))
    }

    /// The Boolean under `name`, nil when absent or null.
    func optionalBool(_ name: StaticString, in object: Int) throws(Unsure) -> Bool? {
        guard let index = try optionalValue(name, in: object) else { return nil }
        return try bool(index)
    }

    /// The required identifier under `name` (not validated: that is the validation's and the reducer's job).
    func id<Tag>(_ name: StaticString, in object: Int) throws(Unsure) -> Identifier<Tag> {
        Identifier(try string(name, in: object))
    }

    /// The identifier under `name`, nil when absent or null.
    func optionalID<Tag>(_ name: StaticString, in object: Int) throws(Unsure) -> Identifier<Tag>? {
        try optionalString(name, in: object).map { Identifier($0) }
    }

    /// The text of a string or key node; an escaped one is decoded by the pre-scan's own string reader.
    static func text(of node: JSONTape.Node, in bytes: UnsafeBufferPointer<UInt8>, limits: JSONPreScan.Limits) -> String {
        if !node.escaped {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(node.start + 1)..<(node.end - 1)]), as: UTF8.self)
        }
        var scanner = JSONPreScan.Scanner(bytes: bytes, limits: limits)
        scanner.i = node.start
        var out: [UInt8] = []
        _ = scanner.string(decodeInto: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
