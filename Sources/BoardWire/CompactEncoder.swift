/// A key in a `codingPath`: an object key or an array index.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

/// The `Encoder` handed to one value: its slot in the output.
struct CompactEncoder: Encoder {
    let writer: JSONByteWriter
    /// Open containers around the slot.
    let depth: Int
    /// The slot's id.
    let slot: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (index, id) = writer.container(object: true, slot: slot, at: depth)
        return KeyedEncodingContainer(CompactKeyedContainer<Key>(writer: writer, index: index, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (index, id) = writer.container(object: false, slot: slot, at: depth)
        return CompactUnkeyedContainer(writer: writer, index: index, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CompactSingleValueContainer(writer: writer, depth: depth, slot: slot)
    }
}

/// A JSON object being written.
struct CompactKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONByteWriter
    /// The object's index in `writer.frames`.
    let index: Int
    /// The object's frame id (-1: a misused container that writes nothing).
    let id: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: index) }

    /// Starts `"key":` when the container is still the one being written.
    @inline(__always) func start(_ key: Key) -> Bool {
        guard id >= 0, writer.reopen(index, id) else { return false }
        writer.startKeyed(index, key)
        return true
    }

    mutating func encodeNil(forKey key: Key) throws { if start(key) { writer.writeNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { if start(key) { writer.writeBool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { if start(key) { writer.writeString(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        throw writer.floatError(value, depth: index + 1, key: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        throw writer.floatError(value, depth: index + 1, key: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { if start(key) { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { if start(key) { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { if start(key) { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { if start(key) { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { if start(key) { writer.writeSigned(value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { if start(key) { writer.writeDecimal(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { if start(key) { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { if start(key) { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        if start(key) { writer.writeUnsigned(UInt64(value)) }
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        if start(key) { writer.writeUnsigned(UInt64(value)) }
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { if start(key) { writer.writeUnsigned(value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { if start(key) { writer.writeDecimal(value) } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if start(key) { try writer.encodeValue(value) }
    }

    // `encodeIfPresent` without the default's detour through `Optional` metadata, for the types the wire's
    // messages have (the others take the protocol's default, with the same output).
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        guard start(key) else { return KeyedEncodingContainer(CompactKeyedContainer<NestedKey>(writer: writer, index: 0, id: -1)) }
        let nestedID = writer.push(object: true, slot: -1)
        return KeyedEncodingContainer(CompactKeyedContainer<NestedKey>(writer: writer, index: index + 1, id: nestedID))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        guard start(key) else { return CompactUnkeyedContainer(writer: writer, index: 0, id: -1) }
        let nestedID = writer.push(object: false, slot: -1)
        return CompactUnkeyedContainer(writer: writer, index: index + 1, id: nestedID)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: SuperKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    /// Writes `"key":` and leaves the value's slot open for the returned encoder.
    private func superEncoder(named key: some CodingKey) -> any Encoder {
        guard id >= 0, writer.reopen(index, id) else {
            return CompactEncoder(writer: writer, depth: index + 1, slot: -2)
        }
        writer.startKeyed(index, key)
        let slot = writer.nextID()
        writer.openSlot = slot
        writer.openSlotDepth = index + 1
        return CompactEncoder(writer: writer, depth: index + 1, slot: slot)
    }
}

/// The key JSONEncoder uses for `superEncoder()`.
enum SuperKey: String, CodingKey {
    case `super`
}

/// A JSON array being written.
struct CompactUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONByteWriter
    /// The array's index in `writer.frames`.
    let index: Int
    /// The array's frame id (-1: a misused container that writes nothing).
    let id: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: index) }

    var count: Int {
        guard id >= 0, index < writer.depth, writer.frames[index].id == id else { return 0 }
        return writer.frames[index].count
    }

    @inline(__always) func start() -> Bool {
        guard id >= 0, writer.reopen(index, id) else { return false }
        writer.startElement(index)
        return true
    }

    mutating func encodeNil() throws { if start() { writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { if start() { writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { if start() { writer.writeString(value) } }
    mutating func encode(_ value: Double) throws { throw writer.floatError(value, depth: index + 1, key: nil) }
    mutating func encode(_ value: Float) throws { throw writer.floatError(value, depth: index + 1, key: nil) }
    mutating func encode(_ value: Int) throws { if start() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if start() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if start() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if start() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if start() { writer.writeSigned(value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { if start() { writer.writeDecimal(value) } }
    mutating func encode(_ value: UInt) throws { if start() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if start() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if start() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if start() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if start() { writer.writeUnsigned(value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { if start() { writer.writeDecimal(value) } }
    mutating func encode<T: Encodable>(_ value: T) throws { if start() { try writer.encodeValue(value) } }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        guard start() else { return KeyedEncodingContainer(CompactKeyedContainer<NestedKey>(writer: writer, index: 0, id: -1)) }
        let nestedID = writer.push(object: true, slot: -1)
        return KeyedEncodingContainer(CompactKeyedContainer<NestedKey>(writer: writer, index: index + 1, id: nestedID))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard start() else { return CompactUnkeyedContainer(writer: writer, index: 0, id: -1) }
        let nestedID = writer.push(object: false, slot: -1)
        return CompactUnkeyedContainer(writer: writer, index: index + 1, id: nestedID)
    }

    mutating func superEncoder() -> any Encoder {
        guard start() else { return CompactEncoder(writer: writer, depth: index + 1, slot: -2) }
        let slot = writer.nextID()
        writer.openSlot = slot
        writer.openSlotDepth = index + 1
        return CompactEncoder(writer: writer, depth: index + 1, slot: slot)
    }
}

/// One value being written into its slot.
struct CompactSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONByteWriter
    /// Open containers around the slot.
    let depth: Int
    /// The slot's id.
    let slot: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth) }

    @inline(__always) func claim() -> Bool { writer.claim(slot: slot, at: depth) }

    mutating func encodeNil() throws { if claim() { writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { if claim() { writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { if claim() { writer.writeString(value) } }
    mutating func encode(_ value: Double) throws { throw writer.floatError(value, depth: depth, key: nil) }
    mutating func encode(_ value: Float) throws { throw writer.floatError(value, depth: depth, key: nil) }
    mutating func encode(_ value: Int) throws { if claim() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if claim() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if claim() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if claim() { writer.writeSigned(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if claim() { writer.writeSigned(value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { if claim() { writer.writeDecimal(value) } }
    mutating func encode(_ value: UInt) throws { if claim() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if claim() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if claim() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if claim() { writer.writeUnsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if claim() { writer.writeUnsigned(value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { if claim() { writer.writeDecimal(value) } }

    /// A nested value fills this same slot (JSONEncoder does the same: `{}` when it encodes nothing).
    mutating func encode<T: Encodable>(_ value: T) throws {
        guard writer.openSlot == slot else {
            writer.fail("a single value was encoded after its value was written", at: depth)
            return
        }
        if T.self == String.self {
            if claim() { writer.writeString(unsafeBitCast(value, to: String.self)) }
            return
        }
        try value.encode(to: CompactEncoder(writer: writer, depth: depth, slot: slot))
    }
}
