import Foundation
import Testing

@testable import BoardCore

/// `JSONValue` reads each JSON kind as itself, whatever order its decoder tries them in.
@Suite struct JSONValueTests {
    @Test(arguments: [
        ("null", JSONValue.null), ("true", .bool(true)), ("false", .bool(false)), ("1", .int(1)), ("-7", .int(-7)),
        (#""1""#, .string("1")), (#""true""#, .string("true")), (#""null""#, .string("null")), (#""""#, .string("")),
        (#"[1,"a",true,null]"#, .array([.int(1), .string("a"), .bool(true), .null])),
        (#"{"a":false,"b":"x"}"#, .object(["a": .bool(false), "b": .string("x")])),
    ])
    func eachKindDecodesAsItself(text: String, value: JSONValue) throws {
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value)) == value)
    }
}
