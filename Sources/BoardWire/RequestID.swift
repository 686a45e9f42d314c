/// A client-chosen request id, echoed in the reply and in any error about that request.
///
/// On the wire it is either a non-negative integer (at most 2^53 − 1) or a string of 1–64 bytes.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral
{
    /// An integer id.
    case int(UInt64)
    /// A string id.
    case string(String)

    /// The largest integer id: 2^53 − 1, the largest integer every JSON parser keeps exactly.
    public static let maxInteger: UInt64 = (1 << 53) - 1
    /// The longest string id, in UTF-8 bytes.
    public static let maxStringBytes = 64

    /// Makes an integer id.
    public init(integerLiteral value: UInt64) { self = .int(value) }

    /// Makes a string id.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Decodes an integer or a string, checking their ranges.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            guard !s.utf8.isEmpty, s.utf8.count <= RequestID.maxStringBytes else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "a string req must have 1-64 bytes")
            }
            self = .string(s)
        } else if let n = try? c.decode(UInt64.self) {
            guard n <= RequestID.maxInteger else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "an integer req must be at most 2^53-1")
            }
            self = .int(n)
        } else {
            throw DecodingError.typeMismatch(
                RequestID.self,
                .init(codingPath: decoder.codingPath, debugDescription: "req must be an integer or a string"))
        }
    }

    /// Encodes the integer or the string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .int(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        }
    }

    /// The id as JSON would show it: `7` or `"a7"`.
    public var description: String {
        switch self {
        case .int(let n): String(n)
        case .string(let s): "\"\(s)\""
        }
    }
}
