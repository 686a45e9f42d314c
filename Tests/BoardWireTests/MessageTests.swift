import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// Payload details: version negotiation, request ids, undo, optional flags and secrets.
@Suite struct MessageTests {
    let coder = LineCoder()

    func json(_ message: ServerMessage) throws -> JSONTree { try JSONTree.parse(coder.encode(message)) }

    @Test func versionNegotiation() throws {
        #expect(ProtocolVersion.current == 1 && ProtocolVersion.supported == [1])
        #expect(ProtocolVersion.isSupported(1) && !ProtocolVersion.isSupported(2))
        #expect(ProtocolVersion.fallback(from: [1]) == 1)
        #expect(ProtocolVersion.fallback(from: [1, 2, 3], ours: [2, 4]) == 2)
        #expect(ProtocolVersion.fallback(from: [3], ours: [1, 2]) == nil)

        let error = WireError.unsupportedVersion(2, req: 1)
        #expect(error.code == .unsupportedVersion && error.versions == [1] && error.req == 1)
        #expect(!error.closesConnection && !error.retryable)
        let tree = try json(.error(error))
        #expect(tree["versions"] == .array([.int(1)]))
        #expect(tree["close"] == nil)
        #expect(tree["code"]?.string == "unsupported_version")
    }

    @Test func requestIDIsAnIntegerOrAString() throws {
        let int = try coder.decodeClient(Array(#"{"type":"boards","req":42}"#.utf8))
        let string = try coder.decodeClient(Array(#"{"type":"boards","req":"42"}"#.utf8))
        #expect(int.req == .int(42) && string.req == .string("42"))
        #expect(int != string)
        #expect(try JSONTree.parse(coder.encode(int))["req"] == .int(42))
        #expect(try JSONTree.parse(coder.encode(string))["req"] == .string("42"))
        #expect(RequestID.int(7).description == "7" && RequestID.string("a").description == "\"a\"")
    }

    @Test func requestIDRangesAreChecked() {
        let tooLong = "\"" + String(repeating: "x", count: 65) + "\""
        for bad in [#""""#, "9007199254740992", "true", "[1]", #"{"a":1}"#, tooLong] {
            #expect(throws: WireError.self, "req \(bad)") {
                try coder.decodeClient(Array(#"{"type":"boards","req":\#(bad)}"#.utf8))
            }
        }
        let largest = try? coder.decodeClient(Array(#"{"type":"boards","req":9007199254740991}"#.utf8))
        #expect(largest?.req == .int(RequestID.maxInteger))
    }

    @Test func undoIsAnOpWithKindUndo() throws {
        let line = #"{"type":"op","board":"main","mut":6,"op":{"kind":"undo","seq":11}}"#
        let message = try coder.decodeClient(Array(line.utf8))
        guard case .op(let m) = message else {
            Issue.record("not an op: \(message)")
            return
        }
        #expect(m.op == .undo(seq: 11) && m.op.kind == "undo")
        #expect(try JSONTree.parse(coder.encode(message))["op"] == .object(["kind": .string("undo"), "seq": .int(11)]))
        let noSeq = #"{"type":"op","board":"main","mut":6,"op":{"kind":"undo"}}"#
        #expect(throws: WireError.self) { try coder.decodeClient(Array(noSeq.utf8)) }
    }

    @Test func ackWritesNoopOnlyWhenTrue() throws {
        #expect(try json(.ack(.init(board: "main", mut: 1, seq: 10)))["noop"] == nil)
        #expect(try json(.ack(.init(board: "main", mut: 1, seq: 10, noop: true)))["noop"] == .bool(true))
    }

    @Test func errorWritesCloseOnlyForClosingCodes() throws {
        #expect(try json(.error(WireError(.slowConsumer, "behind")))["close"] == .bool(true))
        #expect(try json(.error(WireError(.notFound, "no board x")))["close"] == nil)
        #expect(try json(.error(WireError(.rateLimited, "slow down", retryAfterMs: 50)))["retry_after_ms"] == .int(50))
    }

    @Test func rejectCarriesReducerRejections() throws {
        let rejection = Rejection(.conflict, "changed", current: .object(["seq": .int(13)]))
        let reject = ServerMessage.Reject(board: "main", mut: 4, rejection: rejection)
        #expect(reject.code == .rejected(.conflict) && reject.current == rejection.current)
        let tree = try json(.reject(reject))
        #expect(tree["code"]?.string == "conflict" && tree["current"] == .object(["seq": .int(13)]))
    }

    @Test func helloNeverShowsItsToken() {
        let token = "Jd8sK2v9QmX4tR7pL0wZ1cY6nB3hF5gA8eU2iO4kT9s"
        let hello = ClientMessage.Hello(client: "cork/0.1.0", token: token, clientID: "cork-a")
        var dumped = ""
        dump(ClientMessage.hello(hello), to: &dumped)
        for text in ["\(hello)", String(reflecting: hello), "\(ClientMessage.hello(hello))", dumped] {
            #expect(!text.contains(token), "\(text)")
        }
        #expect(String(decoding: coder.encode(.hello(hello)), as: UTF8.self).contains(token))
    }

    @Test func onlyHandshakeMessagesAreAllowedBeforeWelcome() {
        #expect(ClientMessage.hello(.init(client: "c", token: "t")).isAllowedBeforeWelcome)
        #expect(ClientMessage.ping(.init()).isAllowedBeforeWelcome && ClientMessage.bye(.init()).isAllowedBeforeWelcome)
        #expect(!ClientMessage.listBoards(.init()).isAllowedBeforeWelcome)
        #expect(!ClientMessage.op(.init(board: "b", mut: 1, op: .op(.chat(text: "x")))).isAllowedBeforeWelcome)
    }

    @Test func typeNamesAreUniqueAndMatchEncoding() throws {
        #expect(Set(ClientMessage.allTypes).count == ClientMessage.allTypes.count)
        #expect(Set(ServerMessage.allTypes).count == ServerMessage.allTypes.count)
        let samples: [ServerMessage] = [
            .ok(.init(req: 1)), .presenceLeft(.init(board: "b", session: "s", user: "u")),
            .presenceState(.init(board: "b", sessions: [])), .pong(.init()), .bye(.init(reason: "shutdown")),
        ]
        for message in samples {
            #expect(try json(message)["type"]?.string == message.type)
            #expect(ServerMessage.allTypes.contains(message.type))
        }
    }

    @Test func serverPresenceIsFlat() throws {
        let entry = ServerMessage.PresenceEntry(
            session: "s-1", user: "bob", state: .dragging, card: "c1", column: "doing", index: 2)
        let tree = try json(.presence(.init(board: "main", entry: entry)))
        #expect(tree == .object([
            "type": .string("presence"), "board": .string("main"), "session": .string("s-1"), "user": .string("bob"),
            "state": .string("dragging"), "card": .string("c1"), "column": .string("doing"), "index": .int(2),
        ]))
    }
}
