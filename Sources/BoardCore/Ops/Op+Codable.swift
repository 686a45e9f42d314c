extension Op: Codable {
    /// Decodes an op from its flat JSON object; `kind` picks the case. Unknown fields are ignored.
    ///
    /// A field of the wrong JSON type, or a missing one, throws `DecodingError`. A field of the right JSON type whose
    /// value its Swift type cannot hold (a colour that is not `#rrggbb`, a date that is not a date, an unknown role,
    /// a malformed rank) throws `OpDecodingError.invalidValue`: the op is well-formed, and a server answers it with
    /// the reject `invalid`, as it does for every other value out of range (Protocol.md, "JSON rules").
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: OpCodingKey.self)
        let kind = try c.decode(String.self, forKey: OpCodingKey(.kind))
        guard let known = Op.Kind(rawValue: kind) else { throw OpDecodingError.unknownKind(kind) }
        do {
            try self.init(kind: known, reading: CodableOpFields(container: c))
        } catch DecodingError.dataCorrupted(let context) {
            let field = context.codingPath.last { $0.intValue == nil }?.stringValue ?? "op"
            throw OpDecodingError.invalidValue(kind: kind, field: field, reason: context.readableReason)
        }
    }

    /// Encodes the op as a flat JSON object with `kind` first; nil fields are left out.
    public func encode(to encoder: any Encoder) throws {
        var fields = CodableOpFields.Writer(container: encoder.container(keyedBy: OpCodingKey.self))
        try fields.text(.kind, kind)
        try writeFields(to: &fields)
    }
}

/// An op field as a Codable key.
struct OpCodingKey: CodingKey {
    let field: OpField

    init(_ field: OpField) { self.field = field }

    init?(stringValue: String) {
        guard let field = OpField.allCases.first(where: { $0.name.description == stringValue }) else { return nil }
        self.field = field
    }

    init?(intValue: Int) { nil }

    var stringValue: String { field.name.description }
    var intValue: Int? { nil }
}

/// An op's fields in Codable's keyed containers: each value through its own `Decodable` and `Encodable`, so a value
/// out of range is `DecodingError.dataCorrupted` at its field.
struct CodableOpFields: OpFieldReader {
    let container: KeyedDecodingContainer<OpCodingKey>

    func text<T: OpText>(_ field: OpField) throws -> T { try container.decode(T.self, forKey: OpCodingKey(field)) }

    func optionalText<T: OpText>(_ field: OpField) throws -> T? {
        try container.decodeIfPresent(T.self, forKey: OpCodingKey(field))
    }

    func clearable<T: OpText>(_ field: OpField) throws -> Clearable<T>? {
        let key = OpCodingKey(field)
        guard container.contains(key) else { return nil }
        return try container.decodeNil(forKey: key) ? .clear : .set(container.decode(T.self, forKey: key))
    }

    func texts<T: OpText>(_ field: OpField) throws -> [T] {
        try container.decodeIfPresent([T].self, forKey: OpCodingKey(field)) ?? []
    }

    func int(_ field: OpField) throws -> Int { try container.decode(Int.self, forKey: OpCodingKey(field)) }

    func optionalInt(_ field: OpField) throws -> Int? {
        try container.decodeIfPresent(Int.self, forKey: OpCodingKey(field))
    }

    func optionalSeq(_ field: OpField) throws -> UInt64? {
        try container.decodeIfPresent(UInt64.self, forKey: OpCodingKey(field))
    }

    func bool(_ field: OpField) throws -> Bool { try container.decode(Bool.self, forKey: OpCodingKey(field)) }

    func optionalBool(_ field: OpField) throws -> Bool? {
        try container.decodeIfPresent(Bool.self, forKey: OpCodingKey(field))
    }

    func optionalTimestamp(_ field: OpField) throws -> Timestamp? {
        try container.decodeIfPresent(Timestamp.self, forKey: OpCodingKey(field))
    }

    func recurrence(_ field: OpField) throws -> Recurrence? {
        let key = OpCodingKey(field)
        guard container.contains(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: container.codingPath, debugDescription: "missing \(key.stringValue)"))
        }
        return try container.decodeNil(forKey: key) ? nil : container.decode(Recurrence.self, forKey: key)
    }

    struct Writer: OpFieldWriter {
        var container: KeyedEncodingContainer<OpCodingKey>

        mutating func text<T: OpText>(_ field: OpField, _ value: T) throws {
            try container.encode(value, forKey: OpCodingKey(field))
        }

        mutating func texts<T: OpText>(_ field: OpField, _ values: [T]) throws {
            try container.encode(values, forKey: OpCodingKey(field))
        }

        mutating func int(_ field: OpField, _ value: Int) throws { try container.encode(value, forKey: OpCodingKey(field)) }

        mutating func seq(_ field: OpField, _ value: UInt64) throws {
            try container.encode(value, forKey: OpCodingKey(field))
        }

        mutating func bool(_ field: OpField, _ value: Bool) throws {
            try container.encode(value, forKey: OpCodingKey(field))
        }

        mutating func timestamp(_ field: OpField, _ value: Timestamp) throws {
            try container.encode(value, forKey: OpCodingKey(field))
        }

        mutating func recurrence(_ field: OpField, _ value: Recurrence) throws {
            try container.encode(value, forKey: OpCodingKey(field))
        }

        mutating func null(_ field: OpField) throws { try container.encodeNil(forKey: OpCodingKey(field)) }
    }
}

/// Why an op could not be decoded, beyond a field missing or of the wrong JSON type.
public enum OpDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `kind` names no op.
    case unknownKind(String)
    /// `field` has the right JSON type but a value its type cannot hold (`reason` says which).
    case invalidValue(kind: String, field: String, reason: String)

    /// A sentence for the error message.
    public var description: String {
        switch self {
        case .unknownKind(let kind): "unknown op kind \(JSONEscaping.literal(kind))"
        case .invalidValue(let kind, let field, let reason): "\(kind): field `\(field)`: \(reason)"
        }
    }
}

extension DecodingError.Context {
    /// The reason for a person, without the value read: Swift's own text for a value an enum does not take is
    /// "Cannot initialize Role from invalid String value admin", which names a Swift type and echoes the input
    /// (Protocol.md: an error message never echoes raw input).
    public var readableReason: String {
        debugDescription.hasPrefix("Cannot initialize ") ? "not one of the values this field takes" : debugDescription
    }
}
