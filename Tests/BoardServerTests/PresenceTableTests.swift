import BoardCore
import BoardTesting
import BoardWire
import NIOCore
import Testing
@testable import BoardServer

/// `PresenceTable` keeps every entry encoded and in session order; its `presence.state` line must be byte for byte the
/// line the encoder writes for the entries sorted by session, whatever the order of joins, updates and leaves.
@Suite struct PresenceTableTests {
    static func reference(_ entries: [ServerMessage.PresenceEntry], board: BoardID) -> ByteBuffer {
        Lines.line(.presenceState(ServerMessage.PresenceSnapshot(board: board, sessions: entries.sorted { $0.session < $1.session })))
    }

    static func entry(_ n: Int, _ generator: inout SplitMix) -> ServerMessage.PresenceEntry {
        let state = PresenceActivity.allCases[Int(generator.next() % UInt64(PresenceActivity.allCases.count))]
        let dragging = state == .dragging
        return ServerMessage.PresenceEntry(
            session: SessionID("s-\(generator.next() % 997)"), user: UserID("user\(n % 13)"), state: state,
            card: generator.next() % 2 == 0 ? CardID("c\(n)") : nil, column: dragging ? ColumnID("doing") : nil,
            index: dragging ? Int(generator.next() % 40) : nil, away: [nil, true, false][Int(generator.next() % 3)])
    }

    @Test func anEmptyTableWritesTheEncodersLine() {
        let table = PresenceTable()
        #expect(table.stateLine(board: "main") == Self.reference([], board: "main"))
        #expect(table.isEmpty)
    }

    @Test func theLineMatchesTheEncoderThroughJoinsUpdatesAndLeaves() {
        var generator = SplitMix(seed: 12)
        var table = PresenceTable()
        var model: [SessionID: ServerMessage.PresenceEntry] = [:]
        for step in 0..<600 {
            let entry = Self.entry(step, &generator)
            if generator.next() % 4 == 0 {
                let removed = table.removeValue(forKey: entry.session)
                #expect(removed == model.removeValue(forKey: entry.session))
            } else {
                table[entry.session] = entry
                model[entry.session] = entry
            }
            if step % 25 == 0 {
                let line = table.stateLine(board: "release-2026")
                #expect(line == Self.reference(Array(model.values), board: "release-2026"), "after step \(step)")
            }
        }
        #expect(table.stateLine(board: "main") == Self.reference(Array(model.values), board: "main"))
        #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }) == model)
        table.removeAll()
        #expect(table.stateLine(board: "main") == Self.reference([], board: "main"))
    }

    @Test func settingNilRemovesTheSession() {
        var table = PresenceTable()
        let entry = ServerMessage.PresenceEntry(session: "s-1", user: "ann", state: .viewing)
        table[entry.session] = entry
        table[entry.session] = nil
        #expect(table[entry.session] == nil)
        #expect(table.stateLine(board: "main") == Self.reference([], board: "main"))
    }
}
