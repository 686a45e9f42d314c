/// An object on the tape, read by key (a linear search: protocol objects hold a handful of keys).
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var keys: [Key] = []
        var i = decoder.index + 1
        let end = decoder.nodes[decoder.index].next
        while i < end {
            if let key = Key(stringValue: decoder.text(of: decoder.nodes[i])) { keys.append(key) }
            i = decoder.nodes[i + 1].next
        }
        return keys
    }

    /// The index of the value under `key`, or nil.
    func find(_ key: Key) -> Int? {
        let nodes = decoder.nodes
        var i = decoder.index + 1
        let end = nodes[decoder.index].next
        let name = key.stringValue
        while i < end {
            if decoder.key(nodes[i], is: name) { return i + 1 }
            i = nodes[i + 1].next
        }
        return nil
    }

    func value(_ key: Key) throws -> Int {
        guard let index = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for \(key.stringValue)"))
        }
        return index
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.nodes[try value(key)].kind == .null }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = find(key), decoder.nodes[index].kind != .null else { return nil }
        return try decoder.decode(T.self, at: index, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(T.self, at: try value(key), key: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(at: try value(key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(at: try value(key), key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.floating(type, at: try value(key), key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.floating(type, at: try value(key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(type, at: try value(key), key: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(type, at: try value(key), key: key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try value(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try value(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(try value(key), key: key) }
}

/// An array on the tape, read in order.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    /// The node of the next element.
    private var position: Int
    private(set) var currentIndex = 0

    init(decoder: TapeDecoder) {
        self.decoder = decoder
        self.position = decoder.index + 1
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { Int(decoder.nodes[decoder.index].value) }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    private mutating func next<T>(_ type: T.Type, _ read: (Int, any CodingKey) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [TapeIndexKey(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        let value = try read(position, TapeIndexKey(currentIndex))
        position = decoder.nodes[position].next
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.nodes[position].kind == .null else { return false }
        position = decoder.nodes[position].next
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = self.decoder
        return try next(type) { try decoder.decode(T.self, at: $0, key: $1) }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let d = decoder; return try next(type) { try d.bool(at: $0, key: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { let d = decoder; return try next(type) { try d.string(at: $0, key: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { let d = decoder; return try next(type) { try d.floating(type, at: $0, key: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { let d = decoder; return try next(type) { try d.floating(type, at: $0, key: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let d = decoder; return try next(type) { try d.integer(type, at: $0, key: $1) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let d = decoder
        return try next(KeyedDecodingContainer<NestedKey>.self) { try d.child($0, key: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let d = decoder
        return try next((any UnkeyedDecodingContainer).self) { try d.child($0, key: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        let d = decoder
        return try next((any Decoder).self) { d.child($0, key: $1) }
    }
}

/// One value on the tape.
struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TapeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var index: Int { decoder.index }

    func decodeNil() -> Bool { decoder.nodes[index].kind == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self, at: index, key: nil) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: index, key: nil) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(at: index, key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.floating(type, at: index, key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.floating(type, at: index, key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type, at: index, key: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type, at: index, key: nil) }
}
