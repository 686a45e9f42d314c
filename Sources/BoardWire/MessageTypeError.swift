import BoardCore

/// A line's `type` names no message this side accepts; `LineCoder` maps it to `unknown_type`.
public struct MessageTypeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `type` as received.
    public var type: String

    /// Makes the error.
    public init(type: String) { self.type = type }

    /// A sentence for the error message.
    public var description: String { "unknown message type \(JSONEscaping.literal(type))" }

    enum Key: String, CodingKey {
        case type
    }

    /// Reads the `type` field of a message object.
    static func decodeType(from decoder: any Decoder) throws -> String {
        try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .type)
    }

    /// Writes the `type` field of a message object.
    static func encodeType(_ type: String, to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(type, forKey: .type)
    }
}
