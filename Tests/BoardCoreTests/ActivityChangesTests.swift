import PropertyBased
import Testing

@testable import BoardCore

/// An activity's `changes` are computed from the subject's typed fields (`SubjectState`); they must be exactly what
/// diffing the subject's JSON fields before and after gives (the computation before, kept here as the reference),
/// so the activity record's JSON stays byte for byte what it was.
@Suite struct ActivityChangesTests {
    /// The reference: the fields that differ between two JSON field sets, as `[old, new]` (a missing field is null).
    static func referenceChanges(from before: [String: JSONValue], to after: [String: JSONValue]) -> [String: FieldChange] {
        var result: [String: FieldChange] = [:]
        for key in Set(before.keys).union(after.keys) {
            let old = before[key] ?? .null
            let new = after[key] ?? .null
            if old != new { result[key] = FieldChange(old: old, new: new) }
        }
        return result
    }

    /// Applies each template's op in turn; every accepted op's changes must equal the reference's. Returns how many
    /// ops were accepted with changes.
    @discardableResult
    static func check(_ templates: [OpTemplate], on start: Board) -> Int {
        var board = start
        var changed = 0
        for template in templates {
            guard let op = template.op else { continue }
            guard case .success(let change) = board.applying(op, context: ctx(template.actor, on: board)) else { continue }
            let subject = Subject(of: op)
            let expected = referenceChanges(from: board.fields(of: subject), to: change.board.fields(of: subject))
            #expect(change.activity.changes == expected, "\(template)")
            if !expected.isEmpty { changed += 1 }
            board = change.board
        }
        return changed
    }

    @Test func randomOpSequencesGiveTheReferenceChanges() async {
        await propertyCheck(count: 300, input: OpTemplate.sequence) { templates in
            Self.check(templates, on: Fixtures.board)
        }
    }

    /// Every kind of op, with field values spread over each template number: every field of every subject is
    /// set, changed, cleared and left alone somewhere in the run.
    @Test func everyFieldOfEveryOpKind() {
        var templates: [OpTemplate] = []
        for round in 0..<60 {
            for kind in 0..<OpTemplate.kindCount {
                templates.append(OpTemplate(kind: kind, a: round * 7 + kind, b: round * 13 + kind * 3, c: round * 29 + kind, who: 0))
            }
        }
        #expect(Self.check(templates, on: Fixtures.board) > 100)
    }
}
