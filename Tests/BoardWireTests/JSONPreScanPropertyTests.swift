import BoardCore
import Foundation
import PropertyBased
import Testing
@testable import BoardWire

/// The pre-scan agrees with a real JSON parser: it accepts what we write and never accepts what is not JSON.
@Suite struct JSONPreScanPropertyTests {
    /// Builds a JSON value (no floats, at most `depth` containers deep) from a stream of random numbers.
    static func value(_ stream: inout IndexingIterator<[Int]>, depth: Int) -> JSONValue {
        let pieces = ["", "a", "é", "😀", "\"", "\\", "\n", "\u{1}", "x y", "\u{2028}", "{", "]"]
        let pick = stream.next() ?? 0
        switch pick % (depth > 0 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(pick % 2 == 0)
        case 2: return .int(Int64(pick) * 7_919 % ((1 << 53) - 1))
        case 3, 4:
            let n = (stream.next() ?? 0) % 4
            return .string((0..<n).map { _ in pieces[(stream.next() ?? 0) % pieces.count] }.joined())
        case 5: return .array((0..<(stream.next() ?? 0) % 4).map { _ in value(&stream, depth: depth - 1) })
        default: return .object(object(&stream, depth: depth - 1))
        }
    }

    static func object(_ stream: inout IndexingIterator<[Int]>, depth: Int) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for _ in 0..<(stream.next() ?? 0) % 5 {
            result["k\((stream.next() ?? 0) % 8)"] = value(&stream, depth: depth)
        }
        return result
    }

    static let streams = Gen.int(in: 0...1_000_000).array(of: 0...60)

    static func line(_ object: [String: JSONValue]) -> [UInt8] { Array(JSONValue.object(object).description.utf8) }

    @Test func acceptsEveryObjectWeWrite() async {
        await propertyCheck(count: 300, input: Self.streams) { numbers in
            var stream = numbers.makeIterator()
            let object = Self.object(&stream, depth: 3)
            let bytes = Self.line(object)
            #expect(JSONPreScan().check(bytes) == nil, "\(String(decoding: bytes, as: UTF8.self))")
            #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any])
        }
    }

    @Test func neverAcceptsALineThatIsNotOneJSONObject() async {
        // Corrupt a valid line at a random place with a random byte; whatever the pre-scan accepts must parse.
        let bytes = Gen.int(in: 0...255).map { UInt8($0) }
        await propertyCheck(count: 500, input: Self.streams, Gen.int(in: 0...10_000), bytes, Gen.bool) { numbers, at, byte, replace in
            var stream = numbers.makeIterator()
            let object = Self.object(&stream, depth: 2)
            var line = Self.line(object)
            let index = at % (line.count + 1)
            if replace && index < line.count { line[index] = byte } else { line.insert(byte, at: index) }
            if JSONPreScan().check(line) == nil {
                let parsed = try? JSONSerialization.jsonObject(with: Data(line))
                #expect(parsed is [String: Any], "accepted: \(line.map { String($0, radix: 16) })")
            }
        }
    }
}
