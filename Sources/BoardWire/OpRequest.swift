import BoardCore

/// What a client asks to change in an `op` line: a BoardCore op, or the undo of one of the user's own changes.
///
/// On the wire both are the `op` object: `{"kind":"card.move",…}` decodes to `.op`, `{"kind":"undo","seq":41}`
/// to `.undo`. The server resolves an undo to the inverse op, which is what the delta carries.
public enum OpRequest: Hashable, Sendable, Codable {
    /// Apply this op.
    case op(Op)
    /// Undo the change with this seq (it must be the user's own).
    case undo(seq: UInt64)
    /// An op that decodes — a known kind, every field of the right JSON type — but with a value out of range that
    /// its Swift type cannot hold (a colour that is not `#rrggbb`, a date that is not a date, an unknown role, a
    /// malformed rank). The server rejects it with `invalid` (Protocol.md, "JSON rules"); `raw` is the op object as
    /// received, so it encodes back unchanged.
    case invalid(kind: String, problem: String, raw: JSONValue)

    /// The wire kind of an undo request.
    public static let undoKind = "undo"

    /// The `kind` on the wire: the op's kind, or `undo`.
    public var kind: String {
        switch self {
        case .op(let op): op.kind
        case .undo: OpRequest.undoKind
        case .invalid(let kind, _, _): kind
        }
    }

    enum Key: String, CodingKey {
        case kind, seq
    }

    /// Decodes `{"kind":"undo","seq":N}` as an undo and anything else as an `Op` (an unknown kind throws
    /// `OpDecodingError.unknownKind`); an op with a value out of range decodes as `.invalid`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if try c.decode(String.self, forKey: .kind) == OpRequest.undoKind {
            self = .undo(seq: try c.decode(UInt64.self, forKey: .seq))
            return
        }
        do {
            self = .op(try Op(from: decoder))
        } catch OpDecodingError.invalidValue(let kind, let field, let reason) {
            self = .invalid(kind: kind, problem: "field `\(field)`: \(reason)", raw: try JSONValue(from: decoder))
        }
    }

    /// Encodes the flat op object.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .op(let op): try op.encode(to: encoder)
        case .undo(let seq):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(OpRequest.undoKind, forKey: .kind)
            try c.encode(seq, forKey: .seq)
        case .invalid(_, _, let raw): try raw.encode(to: encoder)
        }
    }
}
