import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// `CompactJSONEncoder` as a general `Encoder`: the same JSON tree as `JSONEncoder` for whatever the types encode.
@Suite struct LineWriterEncoderTests {
    // MARK: Every message the protocol documents

    @Test func everyDocumentedMessageMatchesJSONEncoder() throws {
        let checked = ConformanceTests.roundTripAll(try ProtocolDoc.load())
        #expect(checked.count >= 25)
        for item in checked {
            let place = "Protocol.md:\(item.line.number)"
            let (mine, theirs): ([UInt8], [UInt8])
            if let m = item.server {
                (mine, theirs) = (try LineWriter.encode(m), LineCoder().encode(m))
                #expect(try LineCoder().decodeServer(mine) == m, "\(place)")
            } else if let m = item.client {
                (mine, theirs) = (try LineWriter.encode(m), LineCoder().encode(m))
                #expect(try LineCoder().decodeClient(mine) == m, "\(place)")
            } else {
                continue
            }
            let a = try JSONTree.parse(mine)
            let b = try JSONTree.parse(theirs)
            #expect(a == b, "\(place): \(b.firstDifference(from: a) ?? "")")
            #expect(!mine.contains(0x0A), "\(place)")
        }
    }

    @Test func otherServerMessagesMatch() throws {
        let messages: [ServerMessage] = [
            .ack(ServerMessage.Ack(board: "main", mut: 3, seq: 9)),
            .ack(ServerMessage.Ack(board: "main", mut: 3, seq: 9, noop: true)),
            .reject(
                ServerMessage.Reject(
                    board: "main", mut: 4, code: .rateLimited, message: "slow \"down\"\n",
                    current: .object(["a": .array([.null, .int(-1), .string("\u{0}")])]), retryAfterMs: 250)),
            .reject(ServerMessage.Reject(board: "main", mut: 4, code: .rateLimited, message: "m")),
            .error(WireError(.internal, "boom")),
        ]
        for m in messages {
            try LineWriterTests.checkGeneric(m)
            #expect(try LineCoder().decodeServer(try LineWriter.encode(m)) == m)
        }
    }

    // MARK: Encoder semantics

    @Test func scalarsAndIntegersOfEveryWidth() throws {
        #expect(try text(Int8.min) == "-128")
        #expect(try text(Int16.min) == "-32768")
        #expect(try text(Int32.min) == "-2147483648")
        #expect(try text(Int64.min) == "-9223372036854775808")
        #expect(try text(Int.max) == "9223372036854775807")
        #expect(try text(UInt8.max) == "255")
        #expect(try text(UInt16.max) == "65535")
        #expect(try text(UInt32.max) == "4294967295")
        #expect(try text(UInt64.max) == "18446744073709551615")
        #expect(try text(UInt.min) == "0")
        #expect(try text(true) == "true")
        #expect(try text(false) == "false")
        #expect(try text(Int?.none) == "null")
        #expect(try text("a\"b") == #""a\"b""#)
        #expect(try text([1, -2, 3]) == "[1,-2,3]")
        #expect(try text([[Int]]()) == "[]")
        #expect(try text([[1], [], [2, 3]]) == "[[1],[],[2,3]]")
        #expect(try text([Int?.none, 1]) == "[null,1]")
        #expect(try text([String: Int]()) == "{}")
        #expect(try text(["k": [String: Bool]()]) == #"{"k":{}}"#)
        let all = Widths(a: -1, b: -2, c: -3, d: -4, e: -5, f: 1, g: 2, h: 3, i: 4, j: 5, k: nil, l: "x", m: true)
        try LineWriterTests.checkGeneric(all)
        #expect(try text(all) == #"{"a":-1,"b":-2,"c":-3,"d":-4,"e":-5,"f":1,"g":2,"h":3,"i":4,"j":5,"l":"x","m":true}"#)
    }

    @Test func dictionariesOfEveryKeyKindMatch() throws {
        try LineWriterTests.checkGeneric(["b": 2, "a": 1, "\"\n": 3])
        try LineWriterTests.checkGeneric([1: "one", -2: "minus two"])
        try LineWriterTests.checkGeneric([CardID("c1"): 1, CardID("c2"): 2])
        try LineWriterTests.checkGeneric([true: 1, false: 0])  // not a keyed type: an array of key, value, …
        try LineWriterTests.checkGeneric(["a": ["b": ["c": [1, 2]]]])
    }

    @Test func floatsThrowWithTheirPath() throws {
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(1.5) }
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode([Float(1)]) }
        do {
            _ = try CompactJSONEncoder().encode(["outer": [Holder(value: 0.5)]])
            Issue.record("a Double was encoded")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["outer", "Index 0", "value"])
        }
        // A failed encode leaves the buffer as it was.
        var buffer: [UInt8] = [1, 2, 3]
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(["x": 2.5], appendingTo: &buffer) }
        #expect(buffer == [1, 2, 3])
        try CompactJSONEncoder().encode([7], appendingTo: &buffer)
        #expect(buffer == [1, 2, 3] + Array("[7]".utf8))
    }

    @Test func nestedContainersAndSuperEncodersMatch() throws {
        let value = Nested(name: "n", inner: [1, 2], tags: ["t": "v"], superValue: 7)
        try LineWriterTests.checkGeneric(value)
        #expect(
            try text(value)
                == #"{"name":"n","inner":{"list":[1,2],"grid":[[0],{"x":1}]},"tags":{"t":"v"},"super":7,"base":{"p":1},"after":"z"}"#
        )
        try LineWriterTests.checkGeneric(Child())
        #expect(try text(Child()) == #"{"own":1,"super":{"base":"b"}}"#)
        try LineWriterTests.checkGeneric(UnusedSuper())
        #expect(try text(UnusedSuper()) == #"{"super":{},"x":1}"#)
        try LineWriterTests.checkGeneric([UnkeyedSuper()])
        #expect(try text(UnkeyedSuper()) == #"[1,"s",{},2]"#)
    }

    @Test func twoRequestsForTheSameContainerShareIt() throws {
        try LineWriterTests.checkGeneric(TwoKeyed())
        #expect(try text(TwoKeyed()) == #"{"a":1,"b":2}"#)
        try LineWriterTests.checkGeneric(TwoUnkeyed())
        #expect(try text(TwoUnkeyed()) == "[1,2]")
        // A value that encodes nothing is `{}` inside another, and an error at the top.
        try LineWriterTests.checkGeneric(["e": Empty()])
        #expect(try text(["e": Empty()]) == #"{"e":{}}"#)
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(Empty()) }
        // A single-value container may pass the slot on to a nested value.
        #expect(try text(Wrapper(inner: ["q": 1])) == #"{"q":1}"#)
        #expect(try text([Wrapper(inner: Empty())]) == "[{}]")
    }

    @Test func misusesThrowInsteadOfWritingBadJSON() {
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(KeyedThenUnkeyed()) }
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(TwoSingleValues()) }
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(StaleContainer()) }
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode(StaleSibling()) }
    }

    func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try CompactJSONEncoder().encode(value), as: UTF8.self)
    }
}

// MARK: Fixture types

private struct Widths: Encodable {
    var a: Int8, b: Int16, c: Int32, d: Int64, e: Int
    var f: UInt8, g: UInt16, h: UInt32, i: UInt64, j: UInt
    var k: String?, l: String?, m: Bool
}

private struct Holder: Encodable {
    var value: Double
}

private struct Nested: Encodable {
    var name: String
    var inner: [Int]
    var tags: [String: String]
    var superValue: Int

    enum Keys: String, CodingKey { case name, inner, tags, base, after }
    enum InnerKeys: String, CodingKey { case list, grid }
    enum XKeys: String, CodingKey { case x, p }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(name, forKey: .name)
        var inner = c.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        var list = inner.nestedUnkeyedContainer(forKey: .list)
        for i in self.inner { try list.encode(i) }
        var grid = inner.nestedUnkeyedContainer(forKey: .grid)
        var row = grid.nestedUnkeyedContainer()
        try row.encode(0)
        var cell = grid.nestedContainer(keyedBy: XKeys.self)
        try cell.encode(1, forKey: .x)
        try c.encode(tags, forKey: .tags)
        try superValue.encode(to: c.superEncoder())
        var base = c.superEncoder(forKey: .base).container(keyedBy: XKeys.self)
        try base.encode(1, forKey: .p)
        try c.encode("z", forKey: .after)
    }
}

private class Parent: Encodable {
    enum Keys: String, CodingKey { case base }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("b", forKey: .base)
    }
}

private final class Child: Parent {
    enum ChildKeys: String, CodingKey { case own }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChildKeys.self)
        try c.encode(1, forKey: .own)
        try super.encode(to: c.superEncoder())
    }
}

private struct UnusedSuper: Encodable {
    enum Keys: String, CodingKey { case x }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        _ = c.superEncoder()
        try c.encode(1, forKey: .x)
    }
}

private struct UnkeyedSuper: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(1)
        try "s".encode(to: c.superEncoder())
        _ = c.superEncoder()
        try c.encode(2)
    }
}

private struct TwoKeyed: Encodable {
    enum Keys: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var first = encoder.container(keyedBy: Keys.self)
        try first.encode(1, forKey: .a)
        var second = encoder.container(keyedBy: Keys.self)
        try second.encode(2, forKey: .b)
    }
}

private struct TwoUnkeyed: Encodable {
    func encode(to encoder: any Encoder) throws {
        var first = encoder.unkeyedContainer()
        try first.encode(1)
        var second = encoder.unkeyedContainer()
        try second.encode(2)
    }
}

private struct Empty: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

private struct Wrapper<Inner: Encodable>: Encodable {
    var inner: Inner
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(inner)
    }
}

private struct KeyedThenUnkeyed: Encodable {
    enum Keys: String, CodingKey { case a }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(1, forKey: .a)
        var u = encoder.unkeyedContainer()
        try u.encode(2)
    }
}

private struct TwoSingleValues: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(1)
        try c.encode(2)
    }
}

private struct StaleContainer: Encodable {
    enum Keys: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        var inner = c.nestedContainer(keyedBy: Keys.self, forKey: .a)
        try c.encode(1, forKey: .b)
        try inner.encode(2, forKey: .c)  // `inner` was closed when `b` was written
    }
}

private struct StaleSibling: Encodable {
    enum Keys: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        var first = c.nestedContainer(keyedBy: Keys.self, forKey: .a)
        var second = c.nestedContainer(keyedBy: Keys.self, forKey: .b)  // closes `first`, takes its place
        try first.encode(1, forKey: .c)
        try second.encode(2, forKey: .c)
    }
}

/// The hand-written `ack` line against the Codable encoding.
@Suite struct AckLineTests {
    @Test(arguments: [
        (BoardID("main"), UInt64(1), UInt64(10), false), (BoardID("b-2_x"), UInt64.max, UInt64(0), true),
        (BoardID("q\"uote"), UInt64(7), UInt64(14), false),
    ])
    func matchesLineCoder(board: BoardID, mut: UInt64, seq: UInt64, noop: Bool) throws {
        let mine = LineWriter.ackLine(board: board, mut: mut, seq: seq, noop: noop)
        let theirs = LineCoder().encodeLine(.ack(ServerMessage.Ack(board: board, mut: mut, seq: seq, noop: noop)))
        #expect(mine.last == 0x0A)
        #expect(mine.filter { $0 == 0x0A }.count == 1)
        #expect(try JSONTree.parse(Array(mine.dropLast())) == JSONTree.parse(Array(theirs.dropLast())))
        #expect(try LineCoder().decodeServer(Array(mine.dropLast())) == .ack(ServerMessage.Ack(board: board, mut: mut, seq: seq, noop: noop)))
    }
}

/// The store's event JSON (`LineWriter.opJSON`/`activityJSON`) against `JSONEncoder`, for every delta Protocol.md shows.
@Suite struct EventJSONTests {
    @Test func everyDocumentedDeltaOpAndActivityMatchJSONEncoder() throws {
        var checked = 0
        for item in ConformanceTests.roundTripAll(try ProtocolDoc.load()) {
            guard case .delta(let delta) = item.server else { continue }
            let place = "Protocol.md:\(item.line.number)"
            let encoder = JSONEncoder()
            #expect(try JSONTree.parse(Array(LineWriter.opJSON(delta.op).utf8)) == JSONTree.parse(Array(encoder.encode(delta.op))), "\(place)")
            #expect(
                try JSONTree.parse(Array(LineWriter.activityJSON(delta.activity).utf8))
                    == JSONTree.parse(Array(encoder.encode(delta.activity))), "\(place)")
            #expect(try JSONDecoder().decode(Op.self, from: Data(LineWriter.opJSON(delta.op).utf8)) == delta.op, "\(place)")
            checked += 1
        }
        #expect(checked >= 5)
    }
}
