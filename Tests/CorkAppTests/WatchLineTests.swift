import BoardClient
import BoardCore
import BoardWire
import Foundation
import Testing

@testable import CorkApp

/// `cork watch` lines.
@Suite struct WatchLineTests {
    func object(_ line: String) throws -> [String: Any] {
        #expect(!line.contains("\n"))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aChangeIsOneJSONObjectWithTheActivityFields() throws {
        var t = TestBoard.standard()
        let op = Op.moveCard(card: "c1", column: "doing", placement: .bottom)
        let applied = t.apply(op, as: "bob")
        let (change, before) = try #require(applied)
        let json = try object(WatchLine.json(change.activity, board: t.board, isOwn: false))
        #expect(json["type"] as? String == "delta")
        #expect(json["board"] as? String == "main")
        #expect(json["seq"] as? Int == Int(change.activity.seq))
        #expect(json["actor"] as? String == "bob")
        #expect(json["kind"] as? String == "card.move")
        #expect(json["card"] as? String == "c1")
        #expect(json["number"] as? Int == 1)
        #expect(json["own"] as? Bool == false)
        let changes = try #require(json["changes"] as? [String: [String]])
        #expect(changes["column"] == ["todo", "doing"])
        #expect(WatchLine.text(change.activity, after: t.board, before: before) == "[\(change.activity.seq)] bob moved #1 \"Login bug\" TODO → DOING")
    }

    @Test func chatHasItsText() throws {
        var t = TestBoard.standard()
        let op = Op.chat(text: "hello\nthere")
        let applied = t.apply(op, as: "carol")
        let (change, _) = try #require(applied)
        let json = try object(WatchLine.json(change.activity, board: t.board, isOwn: true))
        #expect(json["type"] as? String == "chat" && json["text"] as? String == "hello\nthere")
        #expect(json["own"] as? Bool == true)
        #expect(WatchLine.text(change.activity, after: t.board, before: nil).hasSuffix("<carol> hello there"))
    }

    @Test func presenceLines() throws {
        let entry = PresenceEntry(session: "s-1", user: "bob", state: .editing, card: "c1")
        let json = try object(WatchLine.json(.updated(entry), sessions: ["s-1": entry], board: "main"))
        #expect(json["type"] as? String == "presence" && json["user"] as? String == "bob")
        #expect(json["state"] as? String == "editing" && json["card"] as? String == "c1")
        #expect(WatchLine.text(.updated(entry), sessions: ["s-1": entry], board: TestBoard.standard().board) == "bob is editing #1 \"Login bug\"")
        let left = PresenceEvent.Change.left(session: "s-1", user: "bob")
        let leftJSON = try object(WatchLine.json(left, sessions: [:], board: "main"))
        #expect(leftJSON["type"] as? String == "presence.left" && leftJSON["state"] == nil)
        #expect(WatchLine.text(left, sessions: [:], board: nil) == "bob left")
        let stateJSON = try object(WatchLine.json(.state, sessions: ["s-1": entry], board: "main"))
        #expect(stateJSON["type"] as? String == "presence.state" && (stateJSON["sessions"] as? [Any])?.count == 1)
    }

    @Test func connectionStates() {
        #expect(WatchLine.text(ConnectionState.connected(endpoint: "h:1", user: "bob")) == "connected to h:1 as bob")
        #expect(WatchLine.text(ConnectionState.reconnecting(in: .milliseconds(1500), lastError: "gone")) == "disconnected (gone); reconnecting in 1.5 s")
    }
}
