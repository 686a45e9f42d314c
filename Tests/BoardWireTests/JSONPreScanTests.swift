import Testing
@testable import BoardWire

private func scan(_ text: String, _ limits: JSONPreScan.Limits = .init()) -> JSONPreScanError.Kind? {
    JSONPreScan(limits: limits).check(Array(text.utf8))?.kind
}
private func scan(bytes: [UInt8]) -> JSONPreScanError.Kind? { JSONPreScan().check(bytes)?.kind }

@Suite struct JSONPreScanTests {
    @Test(arguments: [
        #"{}"#, #"{"type":"ping"}"#, #" {"a":[1,2,{"b":null}],"c":true,"d":false} "#, "{\"a\":\"x\"}\r",
        #"{"s":"\u00e9\ud83d\ude00\n\"\\\/"}"#, #"{"n":0,"m":9007199254740991}"#, #"{"a":[]}"#, #"{"a":{}}"#,
        "{\"emoji\":\"😀 héllo\"}", #"{"a":"\u0000"}"#,
    ])
    func acceptsValidLines(_ line: String) {
        #expect(scan(line) == nil)
    }

    @Test(arguments: [
        "", "   ", "[]", "1", #""str""#, "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "{} {}",
        "{}x", "{\"a\":tru}", "{\"a\":nul}", "{'a':1}", "{\"a\":01}", "{\"a\":[1,]}", "{\"a\":\"x}", "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12\"}", "{\"a\":\"tab\there\"}", "{a:1}", "{\"a\":[1}", "{\"a\":{]}",
    ])
    func rejectsMalformedJSON(_ line: String) {
        #expect(scan(line) == .badJSON)
    }

    @Test func rejectsRawControlCharactersAndNUL() {
        #expect(scan(bytes: Array("{\"a\":\"".utf8) + [0x00] + Array("\"}".utf8)) == .badJSON)
        #expect(scan(bytes: Array("{\"a\":\"".utf8) + [0x0A] + Array("\"}".utf8)) == .badJSON)
    }

    @Test(arguments: [
        [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE0, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80],
        [0xC3], [0xF0, 0x9F, 0x98], [0xF8, 0x88, 0x80, 0x80, 0x80],
    ] as [[UInt8]])
    func rejectsInvalidUTF8InStrings(_ bad: [UInt8]) {
        let line = Array("{\"a\":\"".utf8) + bad + Array("\"}".utf8)
        #expect(scan(bytes: line) == .invalidUTF8)
    }

    @Test func rejectsInvalidUTF8OutsideStringsAndBOMAsBadJSON() {
        #expect(scan(bytes: [0xFF] + Array("{}".utf8)) == .badJSON)  // not an object start
        #expect(scan(bytes: Array("{}".utf8) + [0xFF]) == .invalidUTF8)
        #expect(scan(bytes: Array("{}".utf8) + [0xEF, 0xBB, 0xBF]) == .badJSON)
        #expect(scan(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .badJSON)
        #expect(scan(bytes: Array("{\"a\":".utf8) + [0xC0, 0xAF] + Array("}".utf8)) == .invalidUTF8)
    }

    @Test(arguments: [#"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\ud800\u0041"}"#, #"{"a":"\ud800x"}"#, #"{"\udfff":1}"#])
    func rejectsSurrogateEscapes(_ line: String) {
        #expect(scan(line) == .invalidUTF8)
    }

    @Test func depthLimitIsExact() {
        let ok = String(repeating: "{\"a\":", count: 15) + "{}" + String(repeating: "}", count: 15)
        #expect(scan(ok) == nil)  // depth 16
        let deep = String(repeating: "{\"a\":", count: 16) + "{}" + String(repeating: "}", count: 16)
        #expect(scan(deep) == .depthExceeded)  // depth 17
        let arrays = "{\"a\":" + String(repeating: "[", count: 100_000)
        let error = JSONPreScan().check(Array(arrays.utf8))
        #expect(error?.kind == .depthExceeded)
        #expect(error?.offset == 5 + 15)  // fails at the 16th '[', not after reading the rest
    }

    @Test func duplicateKeysAreRejectedEvenWhenEscapedDifferently() {
        #expect(scan(#"{"op":"move","op":"delete"}"#) == .duplicateKey)
        #expect(scan(#"{"card":"a","card":"b"}"#) == .duplicateKey)
        #expect(scan(#"{"a":1,"\u0061":2}"#) == .duplicateKey)
        #expect(scan(#"{"x":{"a":1},"y":{"a":1}}"#) == nil)  // same key in sibling objects is fine
        #expect(scan(#"{"a":[{"k":1},{"k":2}]}"#) == nil)
        #expect(scan(#"{"a":{"k":1,"k":2}}"#) == .duplicateKey)
    }

    @Test func duplicateKeysFoundInLargeObjects() {
        var keys = (0..<100).map { "\"k\($0)\":\($0)" }
        #expect(scan("{" + keys.joined(separator: ",") + "}") == nil)
        keys.append("\"k17\":0")
        let error = JSONPreScan().check(Array(("{" + keys.joined(separator: ",") + "}").utf8))
        #expect(error?.kind == .duplicateKey)
        #expect(error?.message.contains("k17") == true)
    }

    @Test func keyCountLimit() {
        var limits = JSONPreScan.Limits()
        limits.maxKeys = 20
        let twenty = "{" + (0..<20).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"
        let twentyOne = "{" + (0..<21).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"
        #expect(scan(twenty, limits) == nil)
        #expect(scan(twentyOne, limits) == .badRequest)
        let defaultMax = "{" + (0..<257).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"
        #expect(scan(defaultMax) == .badRequest)
    }

    @Test(arguments: [
        #"{"seq":1.0}"#, #"{"seq":1e3}"#, #"{"seq":1E400}"#, #"{"seq":-1}"#, #"{"seq":-0}"#,
        #"{"seq":9007199254740992}"#, #"{"seq":9007199254740993}"#, #"{"seq":123456789012345678901234567890}"#,
        #"{"a":[0.5]}"#,
    ])
    func rejectsNumbersTheProtocolNeverUses(_ line: String) {
        #expect(scan(line) == .badRequest)
    }

    @Test func stringLengthCountsDecodedBytes() {
        var limits = JSONPreScan.Limits()
        limits.maxStringBytes = 8
        #expect(scan(#"{"a":"12345678"}"#, limits) == nil)
        #expect(scan(#"{"a":"123456789"}"#, limits) == .badRequest)
        #expect(scan(#"{"a":"\n\n\n\n\n\n\n\n"}"#, limits) == nil)  // 16 escaped bytes, 8 decoded
        #expect(scan(#"{"a":"éééé"}"#, limits) == nil)  // 8 UTF-8 bytes
        #expect(scan(#"{"a":"ééééé"}"#, limits) == .badRequest)
        let big = "{\"d\":\"" + String(repeating: "x", count: 16 * 1024) + "\"}"
        #expect(scan(big) == nil)
        let tooBig = "{\"d\":\"" + String(repeating: "x", count: 16 * 1024 + 1) + "\"}"
        #expect(scan(tooBig) == .badRequest)
    }

    @Test func errorsCarryTheOffsetOfTheProblem() {
        #expect(JSONPreScan().check(Array(#"{"a":1,"b":2.5}"#.utf8))?.offset == 11)
        #expect(JSONPreScan().check(Array(#"{"a":"ok","a":1}"#.utf8))?.offset == 10)
    }

    @Test func aLineOfOnlyWhitespaceIsNotCalledEmpty() {
        // Protocol.md: an empty line is ignored; one of only spaces or tabs is not empty and gets bad_json.
        let message = JSONPreScan().check(Array(" \t ".utf8))?.message ?? ""
        #expect(message.contains("only whitespace"), "\(message)")
        #expect(!message.contains("empty"), "\(message)")
    }

    @Test func messagesNeverEchoRawInvalidBytes() {
        let line = Array("{\"\u{1}".utf8) + [0xFF, 0xFE] + Array("\":1}".utf8)
        let error = JSONPreScan().check(line)
        #expect(error != nil)
        #expect(error.map { !$0.message.unicodeScalars.contains { $0 == "\u{FFFD}" } } == true)
    }

    @Test func everySplitOfAValidLineIsJudgedTheSameAsTheWhole() {
        // The scanner sees whole lines, but framing hands them over as slices: slices must scan like arrays.
        let line = Array(#"{"type":"op","board":"main","mut":12,"op":{"kind":"card.move","card":"c1","to_column":"doing"}}"#.utf8)
        let padded = [0x20, 0x20] + line + [0x0D]
        #expect(JSONPreScan().check(padded[2...]) == nil)
        #expect(JSONPreScan().check(line.dropLast()) != nil)
    }
}
