import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// How `LineCoder` maps bad lines to wire errors, and what its output looks like.
@Suite struct LineCoderTests {
    let coder = LineCoder()

    func clientError(_ line: String) -> WireError? { clientError(Array(line.utf8)) }

    func clientError(_ bytes: [UInt8]) -> WireError? {
        do {
            _ = try coder.decodeClient(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownTypeIsUnknownType() throws {
        let error = try #require(clientError(#"{"type":"subscrbe","req":5,"board":"main"}"#))
        #expect(error.code == .unknownType)
        #expect(error.message.contains("subscrbe"))
        #expect(error.req == 5)
        #expect(!error.closesConnection)
    }

    /// Protocol.md, "error": the unknown name is quoted as a JSON string literal inside the message, so a quote,
    /// backslash or control character in it is an escape there (an auditor's BEL came back raw).
    @Test func anUnknownNameIsQuotedAsAJSONLiteralInTheMessage() throws {
        let type = try #require(clientError(#"{"type":"a\"b\\c\u0007\u00e9/","req":5}"#))
        #expect(type.message == #"unknown message type "a\"b\\c\u0007é/""#)
        let kind = try #require(clientError(#"{"type":"op","board":"main","mut":1,"op":{"kind":"x\"\n"}}"#))
        #expect(kind.code == .unknownOp)
        #expect(kind.message.hasSuffix(#"unknown op kind "x\"\n""#), "\(kind.message)")
    }

    /// Protocol.md, "error": a `req` or `mut` the pre-scan refused for its spelling is echoed as the integer it
    /// equals; one that is not a whole number is left out, as is a malformed `board`.
    @Test func anErrorEchoesNumbersByTheirValue() throws {
        let exponent = try #require(clientError(#"{"type":"op","board":"main","req":1e3,"mut":2.0,"op":{"kind":"chat","text":"x"}}"#))
        #expect(exponent.code == .badRequest)
        #expect(exponent.req == 1000)
        #expect(exponent.mut == 2)
        #expect(exponent.board == "main")
        let fraction = try #require(clientError(#"{"type":"op","board":"no such board!","req":3.5,"mut":7.25,"op":{"kind":"chat","text":"x"}}"#))
        #expect(fraction.code == .badRequest)
        #expect(fraction.req == nil)
        #expect(fraction.mut == nil)
        #expect(fraction.board == nil)
    }

    @Test func aServerTypeFromAClientIsUnknown() throws {
        #expect(clientError(#"{"type":"welcome","version":1}"#)?.code == .unknownType)
        #expect(throws: WireError.self) { try coder.decodeServer(Array(#"{"type":"hello","version":1}"#.utf8)) }
    }

    @Test func unknownOpKindIsUnknownOpAndEchoesBoardAndMut() throws {
        let error = try #require(clientError(#"{"type":"op","board":"main","mut":8,"op":{"kind":"card.teleport"}}"#))
        #expect(error.code == .unknownOp)
        #expect(error.board == "main")
        #expect(error.mut == 8)
        #expect(error.message.contains("card.teleport"))
    }

    @Test func missingFieldIsBadRequestNamingThePath() throws {
        let error = try #require(clientError(#"{"type":"op","board":"main","mut":9,"op":{"kind":"card.close"}}"#))
        #expect(error.code == .badRequest)
        #expect(error.message.contains("`op.card`"), "\(error.message)")
        let top = try #require(clientError(#"{"type":"subscribe","req":"s1"}"#))
        #expect(top.code == .badRequest && top.message.contains("`board`") && top.req == "s1")
    }

    @Test func wrongTypeIsBadRequestNamingTheField() throws {
        let line = #"{"type":"op","board":"main","mut":"9","op":{"kind":"chat","text":"hi"}}"#
        let error = try #require(clientError(line))
        #expect(error.code == .badRequest)
        #expect(error.message.contains("`mut`") && error.message.contains("an integer"), "\(error.message)")
        let flag = try #require(clientError(#"{"type":"presence","board":"main","state":"viewing","away":"yes"}"#))
        #expect(flag.code == .badRequest && flag.message.contains("`away`") && flag.message.contains("true or false"))
    }

    @Test func nullForARequiredFieldIsBadRequest() throws {
        let error = try #require(clientError(#"{"type":"fetch","board":"main","from":null,"to":3}"#))
        #expect(error.code == .badRequest && error.message.contains("`from`"))
    }

    @Test func badEnumValueIsBadRequest() throws {
        let error = try #require(clientError(#"{"type":"presence","board":"main","state":"sleeping"}"#))
        #expect(error.code == .badRequest && error.message.contains("`state`"))
    }

    @Test func missingTypeIsBadRequest() throws {
        let error = try #require(clientError(#"{"board":"main"}"#))
        #expect(error.code == .badRequest && error.message.contains("`type`"))
    }

    @Test func nonObjectsAndSyntaxErrorsAreBadJSON() throws {
        let bom = "\u{FEFF}{\"type\":\"ping\"}"
        let lines = [#"[1,2]"#, #"{"type":"ping""#, #"{"type":"ping"} x"#, #""ping""#, "", bom]
        for line in lines {
            #expect(clientError(line)?.code == .badJSON, "\(line.debugDescription)")
        }
    }

    @Test func invalidUTF8IsInvalidUTF8() throws {
        let bytes: [UInt8] = Array(#"{"type":"ping","req":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)
        #expect(clientError(bytes)?.code == .invalidUTF8)
        #expect(clientError(bytes)?.message.contains("byte 22") == true)
        #expect(throws: WireError.self) { try coder.decodeServer([0xFF, 0x7B, 0x7D]) }
    }

    @Test func preScanRunsBeforeDecodingAndEchoesTheEnvelope() throws {
        // Foundation would accept 1.0 as an integer and keep one of two duplicate keys; the pre-scan refuses both.
        let float = try #require(clientError(#"{"type":"op","board":"main","mut":1.0,"op":{"kind":"chat","text":"x"}}"#))
        #expect(float.code == .badRequest && float.message.contains("integers"))
        let duplicate = try #require(clientError(#"{"type":"op","req":7,"board":"main","mut":3,"op":{"kind":"card.close","card":"a","card":"b"}}"#))
        #expect(duplicate.code == .duplicateKey && duplicate.req == 7 && duplicate.mut == 3)
        let deep = "{\"type\":\"ping\",\"req\":" + String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000) + "}"
        #expect(clientError(deep)?.code == .depthExceeded)
        let surrogate = #"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"\ud800"}}"#
        #expect(clientError(surrogate)?.code == .invalidUTF8)
        var tight = WireLimits()
        tight.stringMax = 4
        #expect(throws: WireError.self) { try LineCoder(limits: tight).decodeClient(Array(#"{"type":"ping","req":"12345"}"#.utf8)) }
        #expect(throws: Never.self) { try LineCoder(limits: tight).decodeClient(Array(#"{"type":"ping","req":"1234"}"#.utf8)) }
    }

    @Test func aNegativeOrHugeNumberIsBadRequestNotBadJSON() throws {
        let negative = #"{"type":"op","board":"main","mut":-1,"op":{"kind":"chat","text":"x"}}"#
        #expect(clientError(negative)?.code == .badRequest)
        let huge = #"{"type":"fetch","board":"main","from":1,"to":18446744073709551616}"#
        #expect(clientError(huge)?.code == .badRequest)
    }

    @Test func envelopeRulesAreChecked() throws {
        let since = try #require(clientError(#"{"type":"subscribe","req":4,"board":"main","since":12}"#))
        #expect(since.code == .badRequest && since.message.contains("`epoch`") && since.req == 4)
        #expect(clientError(#"{"type":"fetch","board":"main","from":5,"to":4}"#)?.code == .badRequest)
        #expect(clientError(#"{"type":"fetch","board":"main","from":0,"to":4}"#)?.code == .badRequest)
        let id = try #require(clientError(#"{"type":"subscribe","req":1,"board":"../etc"}"#))
        #expect(id.code == .badRequest && id.message.contains("`board`") && id.req == 1)
        let hello = #"{"type":"hello","version":1,"client":"x","token":"t","client_id":""}"#
        #expect(clientError(hello)?.code == .badRequest)
    }

    @Test func lineTerminatorsAreTolerated() throws {
        for ending in ["", "\n", "\r\n"] {
            let message = try coder.decodeClient(Array((#"{"type":"ping","req":3}"# + ending).utf8))
            #expect(message == .ping(Heartbeat(req: 3)))
        }
    }

    @Test func unknownFieldsAreIgnored() throws {
        let line = #"{"type":"op","board":"main","mut":2,"author":"eve","op":{"kind":"chat","text":"hi","actor":"x"}}"#
        let expected = ClientMessage.op(.init(board: "main", mut: 2, op: .op(.chat(text: "hi"))))
        #expect(try coder.decodeClient(Array(line.utf8)) == expected)
    }

    @Test func encodedLinesHaveNoRawNewlineAndKeepTheText() throws {
        let text = "line one\nline two\r\n\ttabbed \u{2028} \"quoted\" \\ /slash"
        let message = ClientMessage.op(.init(board: "main", mut: 7, op: .op(.chat(text: text))))
        let bytes = coder.encode(message)
        #expect(!bytes.contains(0x0A) && !bytes.contains(0x0D))
        #expect(try coder.decodeClient(bytes) == message)
        let line = coder.encodeLine(message)
        #expect(line.last == 0x0A && line.filter { $0 == 0x0A }.count == 1)
        #expect(Array(line.dropLast()) == bytes)
        let delta = ServerMessage.error(WireError(.badRequest, "a\nb"))
        #expect(!coder.encode(delta).contains(0x0A))
    }

    /// Compact, the same every time, and in the message's field order (`type` first), as the server writes it.
    @Test func encodingIsCompactAndDeterministic() {
        let message = ServerMessage.ack(.init(board: "main", mut: 1, seq: 10))
        let bytes = coder.encode(message)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"type":"ack","board":"main","mut":1,"seq":10}"#)
        let op = ClientMessage.op(
            ClientMessage.Mutation(board: "main", mut: 2, op: .op(.moveCard(card: "c1", column: "doing", placement: .bottom))))
        #expect(String(decoding: coder.encode(op), as: UTF8.self).hasPrefix(#"{"type":"op","board":"main","mut":2,"#))
        #expect(coder.encode(message) == bytes)
    }
}
