/// A `Decoder` over a `JSONTape`: the messages' own `Decodable` initialisers read the line straight from the
/// bytes the pre-scan vetted, with no second parse, no `Data` and no copy of the line.
///
/// It answers like Foundation's `JSONDecoder` does for every line the pre-scan passes (the same values, the same
/// kinds of `DecodingError` at the same coding paths), which a differential test checks. It only ever lives inside
/// the `withUnsafe…` scope of the line's bytes.
final class TapeDecoder: Decoder {
    let bytes: UnsafeBufferPointer<UInt8>
    let nodes: [JSONTape.Node]
    let limits: JSONPreScan.Limits
    /// The node this decoder reads.
    let index: Int
    private let parent: TapeDecoder?
    private let key: (any CodingKey)?

    init(
        bytes: UnsafeBufferPointer<UInt8>, nodes: [JSONTape.Node], limits: JSONPreScan.Limits, index: Int = 0,
        parent: TapeDecoder? = nil, key: (any CodingKey)? = nil
    ) {
        self.bytes = bytes
        self.nodes = nodes
        self.limits = limits
        self.index = index
        self.parent = parent
        self.key = key
    }

    /// Built only when an error needs it.
    var codingPath: [any CodingKey] {
        var path = parent?.codingPath ?? []
        if let key { path.append(key) }
        return path
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard nodes[index].kind == .object else {
            throw mismatch([String: Any].self, "expected an object")
        }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard nodes[index].kind == .array else { throw mismatch([Any].self, "expected an array") }
        return TapeUnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { TapeSingleValueContainer(decoder: self) }

    /// A decoder for a child node.
    func child(_ index: Int, key: (any CodingKey)?) -> TapeDecoder {
        TapeDecoder(bytes: bytes, nodes: nodes, limits: limits, index: index, parent: self, key: key)
    }

    // MARK: Values

    /// Decodes the node at `index` (a child under `key`, or this decoder's own node when `key` is nil).
    func decode<T: Decodable>(_ type: T.Type, at index: Int, key: (any CodingKey)?) throws -> T {
        if T.self == String.self { return try string(at: index, key: key) as! T }
        if T.self == Int.self { return try integer(Int.self, at: index, key: key) as! T }
        if T.self == UInt64.self { return try integer(UInt64.self, at: index, key: key) as! T }
        if T.self == Int64.self { return try integer(Int64.self, at: index, key: key) as! T }
        if T.self == Bool.self { return try bool(at: index, key: key) as! T }
        let decoder = key == nil && index == self.index ? self : child(index, key: key)
        return try T(from: decoder)
    }

    func string(at index: Int, key: (any CodingKey)?) throws -> String {
        let node = nodes[index]
        guard node.kind == .string else { throw path(key).mismatchAt(index, String.self) }
        return text(of: node)
    }

    func bool(at index: Int, key: (any CodingKey)?) throws -> Bool {
        switch nodes[index].kind {
        case .true: return true
        case .false: return false
        default: throw path(key).mismatchAt(index, Bool.self)
        }
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int, key: (any CodingKey)?) throws -> T {
        let node = nodes[index]
        guard node.kind == .number else { throw path(key).mismatchAt(index, T.self) }
        guard let value = T(exactly: node.value) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(key).codingPath, debugDescription: "Number \(node.value) does not fit in \(T.self)."))
        }
        return value
    }

    func floating<T: BinaryFloatingPoint>(_ type: T.Type, at index: Int, key: (any CodingKey)?) throws -> T {
        let node = nodes[index]
        guard node.kind == .number else { throw path(key).mismatchAt(index, T.self) }
        return T(node.value)
    }

    /// The text of a string or key node.
    func text(of node: JSONTape.Node) -> String { TapeReader.text(of: node, in: bytes, limits: limits) }

    /// Whether a key node spells `name`.
    func key(_ node: JSONTape.Node, is name: String) -> Bool {
        if node.escaped { return text(of: node) == name }
        let raw = UnsafeBufferPointer(rebasing: bytes[(node.start + 1)..<(node.end - 1)])
        var name = name
        return name.withUTF8 { $0.count == raw.count && (raw.isEmpty || memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0) }
    }

    // MARK: Errors

    /// This decoder, or its child under `key`, for the coding path of an error.
    private func path(_ key: (any CodingKey)?) -> TapeDecoder {
        guard let key else { return self }
        return TapeDecoder(bytes: bytes, nodes: nodes, limits: limits, index: index, parent: self, key: key)
    }

    private func mismatchAt(_ index: Int, _ type: Any.Type) -> DecodingError {
        let node = nodes[index]
        if node.kind == .null {
            return DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
        }
        return mismatch(type, "expected \(type), found \(node.kind)")
    }

    func mismatch(_ type: Any.Type, _ description: String) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: description))
    }
}

/// The position of an element in an array, as a coding key.
struct TapeIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
