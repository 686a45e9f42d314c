import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// `LineWriter.storedDelta`: one encoding gives the `delta` line and the store's op and activity texts.
@Suite struct StoredDeltaTests {
    @Test func theLineIsTheDeltaLineAndTheTextsAreItsOwnBytes() throws {
        let plain = Activity(seq: 3, at: LineWriterTests.at, actor: "alice", kind: "chat")
        for op in LineWriterTests.sampleOps {
            for activity in [LineWriterTests.richActivity, plain] {
                let stored = LineWriter.storedDelta(
                    board: "main", seq: 3, at: LineWriterTests.at, actor: "alice", clientID: ClientID("c1"), mut: 9,
                    op: op, activity: activity)
                let line = LineWriter.deltaLine(
                    board: "main", seq: 3, at: LineWriterTests.at, actor: "alice", clientID: ClientID("c1"), mut: 9,
                    op: op, activity: activity)
                #expect(stored.line == line)
                let text = String(decoding: line, as: UTF8.self)
                #expect(text.contains(",\"op\":" + stored.op + ",\"activity\":"), "op text is not the line's: \(stored.op)")
                // Decoded as the store decodes them: the op, and the activity with its names (deltas leave them out).
                #expect(try JSONDecoder().decode(Op.self, from: Data(stored.op.utf8)) == op)
                #expect(try JSONDecoder().decode(Activity.self, from: Data(stored.activity.utf8)) == activity)
            }
        }
    }
}
