import Foundation
import Testing

@testable import BoardCore

/// Ops on the wire: every kind round-trips through JSON, and `card.edit` tells an absent field from `null`.
@Suite struct ModelOpCodingTests {
    private func encode(_ op: Op) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(op)
    }

    private func decode(_ json: String) throws -> Op {
        try JSONDecoder().decode(Op.self, from: Data(json.utf8))
    }

    private func object(_ op: Op) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: encode(op)) as? [String: Any])
    }

    @Test func theSamplesCoverEveryKindOnce() {
        #expect(Fixtures.sampleOps.map(\.kind) == Op.allKinds)
        #expect(Set(Op.allKinds).count == 42)
    }

    @Test(arguments: Fixtures.sampleOps)
    func roundTrip(_ op: Op) throws {
        let data = try encode(op)
        let decoded = try JSONDecoder().decode(Op.self, from: data)
        #expect(decoded == op)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["kind"] as? String == op.kind)
    }

    @Test(arguments: Fixtures.sampleOps)
    func minimalOpsRoundTrip(_ op: Op) throws {
        // The same kinds with every optional field left out.
        let minimal: Op =
            switch op {
            case .setMember(let user, let role, _): .setMember(user: user, role: role, name: nil)
            case .addColumn(let column, let name, _): .addColumn(column: column, name: name, index: nil)
            case .setWIPLimit(let column, _): .setWIPLimit(column: column, limit: nil)
            case .addCard(let add): .addCard(AddCard(card: add.card, title: add.title))
            case .editCard(let edit): .editCard(EditCard(card: edit.card))
            case .moveCard(let card, let column, _, _): .moveCard(card: card, column: column, placement: .bottom)
            case .addChecklistItem(let card, let item, let text, _, _):
                .addChecklistItem(card: card, item: item, text: text, done: false, index: nil)
            case .editChecklistItem(let card, let item, _, _):
                .editChecklistItem(card: card, item: item, text: nil, done: nil)
            case .updateLabel(let label, _, _): .updateLabel(label: label, name: nil, color: nil)
            case .createMilestone(let m, let title, _, _): .createMilestone(milestone: m, title: title, description: nil, due: nil)
            case .updateMilestone(let m, _, _, _): .updateMilestone(milestone: m, title: nil, description: nil, due: nil)
            default: op
            }
        #expect(try JSONDecoder().decode(Op.self, from: encode(minimal)) == minimal)
    }

    @Test func cardEditTellsAbsentFromNull() throws {
        let absent = try decode(#"{"kind":"card.edit","card":"c1"}"#)
        #expect(absent == .editCard(EditCard(card: "c1")))
        let cleared = try decode(#"{"kind":"card.edit","card":"c1","due":null,"milestone":null,"ref":null}"#)
        #expect(cleared == .editCard(EditCard(card: "c1", due: .clear, milestone: .clear, ref: .clear)))
        let set = try decode(#"{"kind":"card.edit","card":"c1","due":"2026-02-03","milestone":"m1","ref":"X-1"}"#)
        #expect(set == .editCard(EditCard(card: "c1", due: .set(Day(year: 2026, month: 2, day: 3)!), milestone: .set("m1"), ref: .set("X-1"))))
        #expect(absent != cleared)
        #expect(cleared != set)
    }

    @Test func cardEditEncodesClearAsNullAndLeavesAbsentOut() throws {
        let cleared = try object(.editCard(EditCard(card: "c1", due: .clear, milestone: .clear, ref: .clear)))
        #expect(cleared["due"] is NSNull)
        #expect(cleared["milestone"] is NSNull)
        #expect(cleared["ref"] is NSNull)
        let absent = try object(.editCard(EditCard(card: "c1", title: "T")))
        #expect(Set(absent.keys) == ["kind", "card", "title"])
    }

    @Test func theDifferenceMattersToTheReducer() throws {
        var board = Fixtures.board
        let absent = try decode(#"{"kind":"card.edit","card":"c1","title":"Fixed"}"#)
        mustApply(absent, to: &board)
        #expect(board.cards["c1"]?.milestone == "m1")
        #expect(board.cards["c1"]?.ref == "JIRA-1")
        let cleared = try decode(#"{"kind":"card.edit","card":"c1","milestone":null,"ref":null}"#)
        mustApply(cleared, to: &board)
        #expect(board.cards["c1"]?.milestone == nil)
        #expect(board.cards["c1"]?.ref == nil)
    }

    @Test func milestoneDueAlsoTellsAbsentFromNull() throws {
        #expect(try decode(#"{"kind":"milestone.update","milestone":"m1"}"#)
                == .updateMilestone(milestone: "m1", title: nil, description: nil, due: nil))
        #expect(try decode(#"{"kind":"milestone.update","milestone":"m1","due":null}"#)
                == .updateMilestone(milestone: "m1", title: nil, description: nil, due: .clear))
    }

    @Test func wireNamesOfFields() throws {
        let move = try object(.moveCard(card: "c2", column: "doing", placement: Placement(after: "c4")))
        #expect(move["to_column"] as? String == "doing")
        #expect(move["after"] as? String == "c4")
        #expect(move["kind"] as? String == "card.move")
        let edit = try object(.editCard(EditCard(card: "c3", description: "D", baseSeq: 12)))
        #expect(edit["base_seq"] as? Int == 12)
        let wip = try object(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 3, hard: true)))
        #expect(wip["limit"] as? Int == 3)
        #expect(wip["hard"] as? Bool == true)
    }

    @Test func decodingDefaultsAndUnknownFields() throws {
        #expect(try decode(#"{"kind":"column.wip","column":"doing","limit":2}"#)
                == .setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: false)))
        #expect(try decode(#"{"kind":"card.close","card":"c1","future_field":[1,2]}"#) == .closeCard(card: "c1"))
        #expect(try decode(#"{"kind":"checklist.add","card":"c3","item":"i3","text":"x"}"#)
                == .addChecklistItem(card: "c3", item: "i3", text: "x", done: false, index: nil))
    }

    @Test func malformedOpsFailToDecode() {
        #expect(throws: OpDecodingError.unknownKind("card.explode")) { try decode(#"{"kind":"card.explode","card":"c1"}"#) }
        #expect(throws: (any Error).self) { try decode(#"{"card":"c1"}"#) }
        #expect(throws: (any Error).self) { try decode(#"{"kind":"card.close"}"#) }
        #expect(throws: (any Error).self) { try decode(#"{"kind":"card.edit","card":"c1","due":"2026-02-30"}"#) }
        #expect(throws: (any Error).self) { try decode(#"{"kind":"label.create","label":"l","name":"L","color":"red"}"#) }
        #expect(throws: (any Error).self) { try decode(#"{"kind":"card.move","card":"c1","to_column":"todo","rank":"V0"}"#) }
    }

    @Test func activityRecordsEncodeChangesAsPairs() throws {
        let change = try accepted(.closeCard(card: "c2"), on: Fixtures.board)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(change.activity), as: UTF8.self)
        #expect(text == #"{"actor":"alice","at":1767225611000,"card":"c2","changes":{"closed":[false,true]},"kind":"card.close","seq":11}"#)
        #expect(try JSONDecoder().decode(Activity.self, from: Data(text.utf8)) == change.activity)
    }

    /// The activity of every sample op that the fixture board accepts survives JSON (strings, ints, bools, arrays, null).
    @Test(arguments: Fixtures.sampleOps)
    func activitiesRoundTrip(_ op: Op) throws {
        guard case .success(let change) = Fixtures.board.applying(op, context: ctx("alice", on: Fixtures.board)) else {
            return  // a sample that only makes sense on another board (e.g. removing a column that is not there)
        }
        let data = try JSONEncoder().encode(change.activity)
        #expect(try JSONDecoder().decode(Activity.self, from: data) == change.activity)
    }

    @Test func mostSamplesApplyToTheFixtureBoard() {
        let accepted = Fixtures.sampleOps.filter {
            (try? Fixtures.board.applying($0, context: ctx("alice", on: Fixtures.board)).get()) != nil
        }
        #expect(accepted.count >= 33)
    }
}
