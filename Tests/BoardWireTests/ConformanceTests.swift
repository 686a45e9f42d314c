import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// Every example line of Protocol.md is a fixture: it must decode with the Swift types of its direction, and
/// re-encode to the same JSON, so the document and the code cannot drift apart.
@Suite struct ConformanceTests {
    /// The outcome of round-tripping one example line.
    struct Checked {
        var line: ProtocolDoc.ExampleLine
        var client: ClientMessage?
        var server: ServerMessage?
    }

    /// Decodes and re-encodes every example line, recording an issue (with its line number) for each failure.
    static func roundTripAll(_ doc: ProtocolDoc, record: Bool = false) -> [Checked] {
        func fail(_ message: String) { if record { Issue.record(Comment(rawValue: message)) } }
        let coder = LineCoder()
        var checked: [Checked] = []
        for line in doc.exampleLines {
            let place = "Protocol.md:\(line.number)"
            let original: JSONTree
            do {
                original = try JSONTree.parse(line.text)
            } catch {
                fail("\(place): not valid JSON: \(line.text)")
                continue
            }
            if original.containsFloat { fail("\(place): the protocol has no floats, but this line has one") }
            do {
                var result = Checked(line: line)
                let encoded: [UInt8]
                switch line.direction {
                case .client:
                    let message = try coder.decodeClient(Array(line.text.utf8))
                    result.client = message
                    encoded = coder.encode(message)
                case .server:
                    let message = try coder.decodeServer(Array(line.text.utf8))
                    result.server = message
                    encoded = coder.encode(message)
                case nil:
                    fail("\(place): the jsonl block needs a direction (```jsonl client or ```jsonl server)")
                    continue
                }
                let again = try JSONTree.parse(encoded)
                if let difference = original.firstDifference(from: again) {
                    fail("\(place): re-encoding changed the line: \(difference)")
                }
                checked.append(result)
            } catch {
                fail("\(place): does not decode as a \(line.direction!.rawValue) message: \(error)")
            }
        }
        return checked
    }

    @Test func everyExampleLineRoundTrips() throws {
        let doc = try ProtocolDoc.load()
        let checked = ConformanceTests.roundTripAll(doc, record: true)
        #expect(checked.count == doc.exampleLines.count)
        #expect(checked.count >= 25, "Protocol.md must keep at least 25 example lines; it has \(checked.count)")
        print("Protocol.md: \(checked.count) jsonl example lines decoded and re-encoded")
    }

    @Test func everyMessageTypeHasAnExampleInItsDirection() throws {
        let checked = ConformanceTests.roundTripAll(try ProtocolDoc.load())
        let clientTypes = Set(checked.compactMap { $0.client?.type })
        let serverTypes = Set(checked.compactMap { $0.server?.type })
        #expect(Set(ClientMessage.allTypes).subtracting(clientTypes).isEmpty, "client types without example")
        #expect(Set(ServerMessage.allTypes).subtracting(serverTypes).isEmpty, "server types without example")
    }

    @Test func everyOpKindHasAnExample() throws {
        let checked = ConformanceTests.roundTripAll(try ProtocolDoc.load())
        var kinds = Set<String>()
        for item in checked {
            if case .op(let m)? = item.client { kinds.insert(m.op.kind) }
            if case .delta(let d)? = item.server { kinds.insert(d.op.kind) }
        }
        let missing = Set(Op.allKinds + [OpRequest.undoKind]).subtracting(kinds)
        #expect(missing.isEmpty, "op kinds without an example line: \(missing.sorted())")
        #expect(Op.allKinds.count == 42)
    }

    @Test func errorLinesInTheDocCarryTheirCodesFlags() throws {
        let checked = ConformanceTests.roundTripAll(try ProtocolDoc.load())
        var seen = 0
        for item in checked {
            guard case .error(let e)? = item.server else { continue }
            seen += 1
            #expect(e.retryable == e.code.retryable, "Protocol.md:\(item.line.number): retryable of \(e.code)")
            #expect(
                e.closesConnection == e.code.closesConnection, "Protocol.md:\(item.line.number): close of \(e.code)")
        }
        #expect(seen >= 10)
    }

    @Test func summaryTableListsEveryMessageTypeInItsDirection() throws {
        let rows = try ProtocolDoc.load().tableRows(under: "Messages at a glance")
        var client = Set<String>()
        var server = Set<String>()
        for row in rows {
            guard row.count >= 2, let type = ProtocolDoc.codes(in: row[0]).first else { continue }
            if row[1] == "client" || row[1] == "either" { client.insert(type) }
            if row[1] == "server" || row[1] == "either" { server.insert(type) }
        }
        #expect(client == Set(ClientMessage.allTypes))
        #expect(server == Set(ServerMessage.allTypes))
    }

    @Test func opsTableListsEveryKind() throws {
        let rows = try ProtocolDoc.load().tableRows(under: "Ops")
        let kinds = Set(rows.flatMap { ProtocolDoc.codes(in: $0[0]) })
        #expect(kinds == Set(Op.allKinds + [OpRequest.undoKind]))
    }

    @Test func theWorkedSessionCoversTheWholeConversation() throws {
        let doc = try ProtocolDoc.load()
        guard let start = doc.lines.firstIndex(of: "## Worked session") else {
            Issue.record("Protocol.md has no worked session")
            return
        }
        let session = ConformanceTests.roundTripAll(doc).filter { $0.line.number > start }
        let types = session.map { ($0.line.direction == .client ? "C:" : "S:") + ($0.client?.type ?? $0.server!.type) }
        for expected in [
            "C:hello", "S:welcome", "C:boards", "S:boards", "C:subscribe", "S:snapshot", "S:subscribed",
            "S:presence.state", "C:op", "S:ack", "S:delta", "C:presence", "S:presence", "S:reject", "C:ping",
            "S:pong", "S:ping", "C:pong", "C:bye",
        ] {
            #expect(types.contains(expected), "the worked session lacks \(expected)")
        }
        #expect(types.first == "C:hello")
        #expect(types.last == "C:bye")
    }
}
