/// A JSON value without floating-point numbers: the values that appear in activity records (`[old, new]`).
///
/// Corkboard never puts a float on the wire, so numbers are `Int64`.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int64)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; keys are kept sorted when encoded canonically.
    case object([String: JSONValue])

    /// Decodes any JSON value except a non-integral number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // The most frequent kind first (activity changes are mostly ids and titles): each kind tried and missed costs
        // a thrown DecodingError. JSON's kinds do not overlap (a decoder reads no string as a number or a Bool, and
        // no number as a Bool), so the order changes no result.
        if container.decodeNil() {
            self = .null
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let i = try? container.decode(Int64.self) {
            self = .int(i)
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unsupported JSON value")
        }
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }

    /// Canonical compact JSON text: object keys sorted byte-wise, no spaces.
    public var description: String {
        var out = ""
        writeCanonical(into: &out)
        return out
    }

    /// Appends canonical compact JSON text to `out`.
    public func writeCanonical(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.writeCanonical(into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, key) in o.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(key, into: &out)
                out += ":"
                o[key]!.writeCanonical(into: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal, escaping quotes, backslashes and control characters (`JSONEscaping`).
    public static func writeString(_ s: String, into out: inout String) { JSONEscaping.append(s, to: &out) }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

extension JSONValue {
    /// `.string(s)`, or `.null` when `s` is nil.
    static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    /// A sorted array of strings.
    static func strings<S: Sequence>(_ values: S) -> JSONValue where S.Element == String {
        .array(values.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map(JSONValue.string))
    }
}
