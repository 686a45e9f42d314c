import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// One JSON string escaper: the wire's byte writer and `JSONValue`'s canonical text (which the board hash
/// follows) escape every string alike, and the result reads back as the same string.
@Suite struct EscapingTests {
    static let tricky: [String] = [
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }),
        #"quote " backslash \ slash / "#,
        "é ü 中文 😀 \u{7F} \u{2028} \u{2029}",
        "",
        "plain",
    ]

    @Test func theWireAndTheCanonicalTextEscapeAlike() throws {
        for s in Self.tricky {
            var canonical = ""
            JSONValue.writeString(s, into: &canonical)
            var wire: [UInt8] = []
            LineWriter.appendString(s, to: &wire)
            #expect(String(decoding: wire, as: UTF8.self) == canonical)
            let decoded = try JSONDecoder().decode(String.self, from: Data(wire))
            #expect(decoded == s)
            #expect(!wire.contains(0x0A))
        }
    }
}
