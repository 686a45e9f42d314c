/// One JSON line as the pre-scan read it: a flat list of nodes pointing into the line's bytes, recorded in the
/// same pass that vets the line, so that decoding reads no byte twice and copies nothing but the values it keeps.
///
/// Nodes come in document order. A container's node is followed by its children (for an object: key, value, key,
/// value, …); `next` is the index just past a node's subtree, so skipping a value costs nothing. Only lines the
/// pre-scan passed are decoded from a tape, so every number is a non-negative integer no larger than 2^53 − 1 and
/// every string is well-formed.
struct JSONTape {
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    struct Node {
        var kind: Kind
        /// Whether a string (or key) holds an escape, so it cannot be read straight from the bytes.
        var escaped: Bool
        /// A string's or key's offset of its opening quote; a container's of its opening bracket.
        var start: Int
        /// A string's offset just past its closing quote.
        var end: Int
        /// The index just past this node's subtree.
        var next: Int
        /// A container's number of children (an object's keys and values both count); a number's value.
        var value: UInt64
    }

    private(set) var nodes: [Node] = []
    private var open: [Int] = []

    init() { nodes.reserveCapacity(32) }

    mutating func open(isObject: Bool, at offset: Int) {
        let index = nodes.count
        noteChild()
        open.append(index)
        nodes.append(Node(kind: isObject ? .object : .array, escaped: false, start: offset, end: offset, next: index + 1, value: 0))
    }

    mutating func close(at offset: Int) {
        guard let index = open.popLast() else { return }
        nodes[index].next = nodes.count
        nodes[index].end = offset
    }

    mutating func key(start: Int, end: Int, escaped: Bool) {
        noteChild()
        nodes.append(Node(kind: .string, escaped: escaped, start: start, end: end, next: nodes.count + 1, value: 0))
    }

    mutating func scalar(from bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int, escaped: Bool) {
        noteChild()
        let kind: Kind
        var value: UInt64 = 0
        switch bytes[start] {
        case UInt8(ascii: "\""): kind = .string
        case UInt8(ascii: "t"): kind = .true
        case UInt8(ascii: "f"): kind = .false
        case UInt8(ascii: "n"): kind = .null
        default:
            kind = .number
            for k in start..<end { value = value * 10 + UInt64(bytes[k] &- UInt8(ascii: "0")) }
        }
        nodes.append(Node(kind: kind, escaped: escaped, start: start, end: end, next: nodes.count + 1, value: value))
    }

    private mutating func noteChild() {
        if let parent = open.last { nodes[parent].value += 1 }
    }
}
