import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// The one-pass decoder (`LineCoder.decodeClient`: the pre-scan records a tape, `TapeDecoder` reads it) against the
/// reference path (`decodeClientReference`: pre-scan, then Foundation's `JSONDecoder`), line by line: every line the
/// reference decodes, the one-pass decoder decodes to the same message without falling back; every line the
/// reference refuses, it refuses too; and the entry point answers exactly as the reference, errors included.
@Suite struct OnePassDecoderTests {
    let coder = LineCoder()

    /// Checks one line; returns whether the reference decoded it.
    @discardableResult
    func agree(_ line: [UInt8], _ label: @autoclosure () -> String = "") -> Bool {
        let reference = Result { () throws(WireError) -> ClientMessage in try coder.decodeClientReference(line) }
        let onePass = line.withUnsafeBufferPointer { coder.decodeInOnePass($0) }
        let fieldByField = line.withUnsafeBufferPointer { coder.decodeFieldByField($0) }
        let entry = Result { () throws(WireError) -> ClientMessage in try coder.decodeClient(line) }
        let text = String(decoding: line.prefix(300), as: UTF8.self)
        switch reference {
        case .success(let message):
            #expect(onePass == message, "one pass differs on \(label()) \(text)")
            #expect(fieldByField == nil || fieldByField == message, "field by field differs on \(label()) \(text)")
        case .failure(let error):
            #expect(onePass == nil, "one pass decoded a line the reference refuses (\(error)): \(label()) \(text)")
            #expect(fieldByField == nil, "field by field decoded a line the reference refuses (\(error)): \(label()) \(text)")
        }
        #expect(entry == reference, "entry point differs on \(label()) \(text)")
        return (try? reference.get()) != nil
    }

    func agree(_ line: String, _ label: String = "") -> Bool { agree(Array(line.utf8), label) }

    @Test func everyClientExampleOfProtocolMd() throws {
        let doc = try ProtocolDoc.load()
        let examples = doc.exampleLines.filter { $0.direction == .client }
        #expect(examples.count > 20)
        for example in examples {
            #expect(agree(example.text, "Protocol.md:\(example.number)"), "Protocol.md:\(example.number) must decode")
        }
    }

    /// Valid ops of every kind, with optional fields, escapes and non-ASCII text.
    static let ops: [String] = [
        #"{"kind":"board.rename","name":"Ops \u00e9t\u00e9"}"#,
        #"{"kind":"member.set","user":"bob","role":"editor","name":"Bob"}"#,
        #"{"kind":"member.set","user":"bob","role":"viewer"}"#,
        #"{"kind":"member.remove","user":"bob"}"#,
        #"{"kind":"column.add","column":"qa","name":"QA","index":2}"#,
        #"{"kind":"column.add","column":"qa","name":"QA"}"#,
        #"{"kind":"column.rename","column":"qa","name":"Q\"A"}"#,
        #"{"kind":"column.move","column":"qa","index":0}"#,
        #"{"kind":"column.remove","column":"qa"}"#,
        #"{"kind":"column.wip","column":"doing","limit":3,"hard":true}"#,
        #"{"kind":"column.wip","column":"doing","limit":null}"#,
        #"{"kind":"column.wip","column":"doing"}"#,
        #"{"kind":"card.add","card":"c1","column":"todo","title":"Ship","description":"d\nx","due":"2026-02-15","labels":["l1","l2"],"assignees":["bob"],"milestone":"m1","ref":"GH-1","after":"c0"}"#,
        #"{"kind":"card.add","card":"c1","title":"Ship"}"#,
        #"{"kind":"card.add","card":"c1","title":"Ship","index":0,"rank":"U"}"#,
        #"{"kind":"card.edit","card":"c1","title":"T","description":"D","base_seq":7,"due":null,"milestone":"m2","ref":null}"#,
        #"{"kind":"card.edit","card":"c1","due":"2026-03-01"}"#,
        #"{"kind":"card.move","card":"c3","to_column":"doing","after":"c1"}"#,
        #"{"kind":"card.move","card":"c3","to_column":"doing","before":"c1","after":"c2"}"#,
        #"{"kind":"card.move","card":"c3","to_column":"doing","index":4}"#,
        #"{"kind":"card.label","card":"c1","label":"l1"}"#,
        #"{"kind":"card.unlabel","card":"c1","label":"l1"}"#,
        #"{"kind":"card.assign","card":"c1","user":"bob"}"#,
        #"{"kind":"card.unassign","card":"c1","user":"bob"}"#,
        #"{"kind":"card.close","card":"c1"}"#,
        #"{"kind":"card.reopen","card":"c1"}"#,
        #"{"kind":"card.archive","card":"c1"}"#,
        #"{"kind":"card.restore","card":"c1"}"#,
        #"{"kind":"card.purge","card":"c1"}"#,
        #"{"kind":"checklist.add","card":"c1","item":"i1","text":"step","done":true,"index":0}"#,
        #"{"kind":"checklist.add","card":"c1","item":"i1","text":"step"}"#,
        #"{"kind":"checklist.edit","card":"c1","item":"i1","done":false}"#,
        #"{"kind":"checklist.remove","card":"c1","item":"i1"}"#,
        #"{"kind":"comment.add","card":"c1","comment":"k1","text":"looks good \ud83d\ude00"}"#,
        #"{"kind":"comment.edit","card":"c1","comment":"k1","text":"edited"}"#,
        #"{"kind":"comment.delete","card":"c1","comment":"k1"}"#,
        ##"{"kind":"label.create","label":"l1","name":"bug","color":"#ff0000"}"##,
        #"{"kind":"label.create","label":"l1","name":"bug","color":"red"}"#,
        ##"{"kind":"label.update","label":"l1","color":"#00ff00"}"##,
        #"{"kind":"label.delete","label":"l1"}"#,
        #"{"kind":"milestone.create","milestone":"m1","title":"v1","description":"first","due":"2026-06-01"}"#,
        #"{"kind":"milestone.create","milestone":"m1","title":"v1","due":"not a day"}"#,
        #"{"kind":"milestone.update","milestone":"m1","due":null}"#,
        #"{"kind":"milestone.close","milestone":"m1"}"#,
        #"{"kind":"milestone.reopen","milestone":"m1"}"#,
        #"{"kind":"milestone.delete","milestone":"m1"}"#,
        #"{"kind":"chat","text":"hello \/ world \u0041"}"#,
        #"{"kind":"undo","seq":41}"#,
        #"{"kind":"member.set","user":"bob","role":"emperor"}"#,
        #"{"kind":"card.move","card":"c3","to_column":"doing","rank":"!!"}"#,
    ]

    /// Other frequent and rare client messages.
    static let messages: [String] = [
        #"{"type":"hello","version":1,"client":"cork/0.1","token":"t0k","client_id":"laptop"}"#,
        #"{"type":"boards","req":1}"#,
        #"{"type":"board.create","req":"r1","board":"ops","name":"Ops"}"#,
        #"{"type":"subscribe","req":2,"board":"main","since":10,"epoch":"e1","presence":false}"#,
        #"{"type":"unsubscribe","req":3,"board":"main"}"#,
        #"{"type":"fetch","req":4,"board":"main","from":3,"to":9}"#,
        #"{"type":"presence","board":"main","state":"dragging","card":"c1","column":"todo","index":2}"#,
        #"{"type":"presence","board":"main","state":"viewing","away":true}"#,
        #"{"type":"presence","board":"main","state":"idle","away":true,"away_note":"lunch \u00e9 🍜"}"#,
        #"{"type":"history","req":5,"board":"main","card":"c1","before":30,"limit":10}"#,
        #"{"type":"ping","req":6}"#,
        #"{"type":"pong"}"#,
        #"{"type":"bye"}"#,
    ]

    static func opLine(_ op: String, mut: Int = 7) -> String { #"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"# }

    @Test func generatedOpsOfEveryKindAndTheirMutations() {
        var decoded = 0
        var lines = Self.ops.map { Self.opLine($0) } + Self.messages
        #expect(lines.allSatisfy { agree($0) })
        // Each line mutated: every value in turn replaced by values of every JSON type, every key dropped or doubled.
        let replacements = ["null", "1", "0", "9007199254740991", "\"x\"", "\"\"", "true", "[]", "{}", "[\"a\"]", #"{"k":1}"#]
        var mutated: [String] = []
        for line in lines {
            let bytes = Array(line.utf8)
            for (range, key) in Self.valueRanges(bytes) {
                for replacement in replacements {
                    mutated.append(String(decoding: bytes[..<range.lowerBound], as: UTF8.self) + replacement
                        + String(decoding: bytes[range.upperBound...], as: UTF8.self))
                }
                // Drop the pair (and a comma), or say it twice.
                let pair = Self.pairRange(bytes, key: key, value: range)
                mutated.append(String(decoding: bytes[..<pair.lowerBound], as: UTF8.self) + String(decoding: bytes[pair.upperBound...], as: UTF8.self))
                mutated.append(String(decoding: bytes[..<range.upperBound], as: UTF8.self) + "," + String(decoding: bytes[key.lowerBound..<range.upperBound], as: UTF8.self)
                    + String(decoding: bytes[range.upperBound...], as: UTF8.self))
            }
            // Extra fields must be ignored the same way (mass assignment: `author`, a `board` inside a card op).
            mutated.append(line.replacingOccurrences(of: #""kind":"#, with: #""author":"mallory","board":"other","kind":"#))
        }
        lines = mutated
        for line in lines where agree(line) { decoded += 1 }
        #expect(decoded > 100, "some mutations still decode")
        #expect(decoded < lines.count, "and some do not")
    }

    /// The values an op's Swift types cannot hold: such an op is left to the general path (it becomes `.invalid`).
    static let outOfRange = ["emperor", "\"red\"", "not a day", "\"!!\""]

    /// The frequent messages are read field by field, never by the general path: every valid op line above, the
    /// presence, ping and pong lines, and Protocol.md's examples of them.
    @Test func theFrequentMessagesAreReadFieldByField() throws {
        let frequent: Set<String> = ["op", "presence", "ping", "pong"]
        var lines = Self.ops.filter { op in !Self.outOfRange.contains { op.contains($0) } }.map { Self.opLine($0) }
        lines += Self.messages.filter { line in frequent.contains { line.contains(#""type":"\#($0)""#) } }
        lines += try ProtocolDoc.load().exampleLines.filter { $0.direction == .client }.map(\.text)
            .filter { line in frequent.contains { line.contains(#""type":"\#($0)""#) } }
        #expect(lines.count > 50)
        for line in lines {
            let bytes = Array(line.utf8)
            let read = bytes.withUnsafeBufferPointer { coder.decodeFieldByField($0) }
            #expect(read != nil && read == (try? coder.decodeClientReference(bytes)), "not read field by field: \(line)")
        }
    }

    /// Random ops of every kind (and undos, presence, ping, pong), encoded by the reference encoder, decode to the
    /// same message both ways, and field by field.
    @Test(arguments: Op.Kind.allCases) func generatedMessagesDecodeTheSameBothWays(kind: Op.Kind) {
        var generator = GeneratedMessages(seed: UInt64(Op.Kind.allCases.firstIndex(of: kind)!) &+ 0xC0FFEE)
        for _ in 0..<200 {
            let message = generator.message(kind)
            let line = coder.encode(message)
            let reference = try? coder.decodeClientReference(line)
            let text = String(decoding: line, as: UTF8.self)
            #expect(reference == message, "the reference does not round-trip \(text)")
            #expect(line.withUnsafeBufferPointer { coder.decodeFieldByField($0) } == message, "field by field: \(text)")
            #expect(line.withUnsafeBufferPointer { coder.decodeInOnePass($0) } == message, "one pass: \(text)")
            #expect((try? coder.decodeClient(line + [0x0A])) == message, "entry point: \(text)")
        }
    }

    @Test func everyTruncationOfAnOpLine() {
        let line = Array(Self.opLine(Self.ops[12]).utf8)
        for end in 0...line.count { agree(Array(line[..<end]), "prefix \(end)") }
        agree(line + [0x0A], "with \\n")
        agree(line + [0x0D, 0x0A], "with \\r\\n")
    }

    /// RELIABILITY.md (b2): every hostile line of P2–P6.
    @Test func everyHostileCaseOfTheCatalogue() {
        var hostile: [[UInt8]] = []
        // P2: deep nesting.
        hostile.append(Array(String(repeating: "[", count: 100_000).utf8))
        hostile.append(Array((String(repeating: #"{"a":"#, count: 1_000) + "1" + String(repeating: "}", count: 1_000)).utf8))
        let cap = 16
        hostile.append(Array((#"{"type":"ping","x":"# + String(repeating: "[", count: cap) + String(repeating: "]", count: cap) + "}").utf8))
        hostile.append(Array((#"{"type":"ping","x":"# + String(repeating: "[", count: cap - 1) + String(repeating: "]", count: cap - 1) + "}").utf8))
        // P3: invalid UTF-8, surrogates, NUL, BOM.
        let op = Array(Self.opLine(#"{"kind":"chat","text":"X"}"#).utf8)
        let x = op.firstIndex(of: UInt8(ascii: "X"))!
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], Array(#"\ud800"#.utf8), [0x00], [0xF4, 0x90, 0x80, 0x80], [0x80]] {
            hostile.append(Array(op[..<x]) + bad + Array(op[(x + 1)...]))
        }
        hostile.append([0xEF, 0xBB, 0xBF] + op)
        hostile.append(op + [0xFF])
        // P4: numbers.
        for number in ["1e400", "123456789012345678901234567890", "-0", "1.0", "9007199254740993", "9007199254740992", "-1", "01", "1E2"] {
            hostile.append(Array(#"{"type":"op","board":"main","mut":\#(number),"op":{"kind":"undo","seq":1}}"#.utf8))
            hostile.append(Array(#"{"type":"op","board":"main","mut":1,"op":{"kind":"column.move","column":"a","index":\#(number)}}"#.utf8))
        }
        // P5: duplicate keys.
        hostile.append(Array(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.move","kind":"card.archive","card":"a","to_column":"b"}}"#.utf8))
        hostile.append(Array(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.close","card":"a","card":"b"}}"#.utf8))
        hostile.append(Array(#"{"type":"op","type":"op","board":"main","mut":1,"op":{"kind":"card.close","card":"a"}}"#.utf8))
        hostile.append(Array(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.close","c\u0061rd":"a","card":"b"}}"#.utf8))
        // P6: unknown or missing op, wrong types, extra fields, bad ids.
        for line in [
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.teleport","card":"a"}}"#,
            #"{"type":"op","board":"main","mut":1}"#,
            #"{"type":"op","board":"main","mut":1,"op":{}}"#,
            #"{"type":"op","board":"main","mut":"1","op":{"kind":"card.close","card":"a"}}"#,
            #"{"type":"op","board":7,"mut":1,"op":{"kind":"card.close","card":"a"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.close","card":"a","author":"someone_else"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.close","card":"a","board":"other"}}"#,
            #"{"type":"op","board":"no spaces","mut":1,"op":{"kind":"card.close","card":"a"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.close","card":"\u0000"}}"#,
            #"{"type":"teleport","req":1}"#,
            #"{"req":1}"#,
            #"[1,2]"#, #""op""#, "", " ", "{", "}", #"{"type":"ping"} {"type":"ping"}"#, #"{"type":"ping",}"#,
            #"{"type":"ping","req":1.5}"#, #"{"type":"ping","req":-1}"#, #"{"type":"ping","req":"x"}"#,
            #"{"type":"hello","version":1,"client":"c","token":"t","client_id":"bad id"}"#,
            #"{"type":"board.create","req":1,"board":"ok","name":""}"#,
            #"{"type":"subscribe","req":1,"board":"main","since":null}"#,
            #"{"type":"fetch","req":1,"board":"main","from":1}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"a","title":"t","labels":"l1"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"a","title":"t","labels":[1]}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"column.wip","column":"a","limit":3,"hard":1}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"checklist.edit","card":"a","item":"i","done":null}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"undo"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"undo","seq":"1"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":"chat"}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":null}}"#,
            "{\"type\":\"op\",\"board\":\"main\",\"mut\":1,\"op\":{\"kind\":\"chat\",\"text\":\"raw\ttab\"}}",
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"\x"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"\u12"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"\udc00"}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":""# + String(repeating: "a", count: 16_385) + #""}}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"t"}"#,
            #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"t"}}}"#,
        ] {
            hostile.append(Array(line.utf8))
        }
        // Too many keys.
        hostile.append(Array(("{" + (0..<257).map { #""k\#($0)":1"# }.joined(separator: ",") + #","type":"ping"}"#).utf8))
        hostile.append(Array(("{" + (0..<200).map { #""k\#($0)":1"# }.joined(separator: ",") + #","type":"ping"}"#).utf8))
        for line in hostile { agree(line) }
    }

    // MARK: Line surgery

    /// The byte ranges of every value that follows a key (`"key":VALUE`), scalar or not, with the key's range.
    static func valueRanges(_ b: [UInt8]) -> [(value: Range<Int>, key: Range<Int>)] {
        var out: [(Range<Int>, Range<Int>)] = []
        var i = 0
        while i < b.count {
            guard b[i] == UInt8(ascii: "\"") else { i += 1; continue }
            let keyStart = i
            let keyEnd = Self.stringEnd(b, from: i)
            guard keyEnd < b.count, b[keyEnd] == UInt8(ascii: ":") else { i = keyEnd; continue }
            let start = keyEnd + 1
            let end = Self.valueEnd(b, from: start)
            out.append((start..<end, keyStart..<keyEnd))
            i = start
        }
        return out
    }

    /// The range of `"key":value` plus one adjacent comma.
    static func pairRange(_ b: [UInt8], key: Range<Int>, value: Range<Int>) -> Range<Int> {
        if value.upperBound < b.count, b[value.upperBound] == UInt8(ascii: ",") { return key.lowerBound..<(value.upperBound + 1) }
        if key.lowerBound > 0, b[key.lowerBound - 1] == UInt8(ascii: ",") { return (key.lowerBound - 1)..<value.upperBound }
        return key.lowerBound..<value.upperBound
    }

    static func stringEnd(_ b: [UInt8], from start: Int) -> Int {
        var i = start + 1
        while i < b.count {
            if b[i] == UInt8(ascii: "\\") { i += 2; continue }
            if b[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return b.count
    }

    static func valueEnd(_ b: [UInt8], from start: Int) -> Int {
        guard start < b.count else { return start }
        if b[start] == UInt8(ascii: "\"") { return stringEnd(b, from: start) }
        var depth = 0
        var i = start
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""): i = stringEnd(b, from: i); continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return i }
                depth -= 1
                if depth == 0 { return i + 1 }
            case UInt8(ascii: ","): if depth == 0 { return i }
            default: break
            }
            i += 1
        }
        return i
    }
}
