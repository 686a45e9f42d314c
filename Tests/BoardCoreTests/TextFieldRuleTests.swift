import Testing

@testable import BoardCore

/// Protocol.md, "Text fields": one-line fields hold no control character and not only spaces; multi-line fields allow
/// tab, line feed and carriage return; a description (and a member's name) may be empty, a comment or chat may not.
@Suite struct TextFieldRuleTests {
    /// One text in one field, and whether the reducer takes it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var op: Op
        var accepted: Bool
        var testDescription: String { "\(accepted ? "takes" : "refuses") \(name)" }
    }

    static let oneLine: [(String, @Sendable (String) -> Op)] = [
        ("card title", { .addCard(AddCard(card: "n1", column: "todo", title: $0)) }),
        ("column name", { .addColumn(column: "qa", name: $0, index: nil) }),
        ("label name", { .createLabel(label: "perf", name: $0, color: HexColor(red: 1, green: 2, blue: 3)) }),
        ("member name", { .setMember(user: "bob", role: .editor, name: $0) }),
        ("board name", { .renameBoard(name: $0) }),
        ("milestone title", { .createMilestone(milestone: "m2", title: $0, description: nil, due: nil) }),
        ("checklist item", { .addChecklistItem(card: "c1", item: "i9", text: $0, done: false, index: nil) }),
        ("ref", { .editCard(EditCard(card: "c2", ref: .set($0))) }),
    ]

    static let multiLine: [(String, @Sendable (String) -> Op)] = [
        ("card description", { .editCard(EditCard(card: "c2", description: $0)) }),
        ("milestone description", { .updateMilestone(milestone: "m1", title: nil, description: $0, due: nil) }),
        ("comment", { .addComment(card: "c1", comment: "k9", text: $0) }),
        ("chat", { .chat(text: $0) }),
    ]

    static let cases: [Case] = {
        var cases: [Case] = []
        for (field, make) in oneLine {
            for (what, text) in [
                ("a tab", "a\tb"), ("a line feed", "a\nb"), ("a carriage return", "a\rb"), ("NUL", "a\u{0}b"),
                ("DEL", "a\u{7F}b"), ("a C1 control", "a\u{85}b"), ("U+2028", "a\u{2028}b"), ("U+2029", "a\u{2029}b"),
                ("only spaces", "   "),
            ] {
                cases.append(Case(name: "\(what) in a \(field)", op: make(text), accepted: false))
            }
            cases.append(Case(name: "a plain \(field)", op: make("Ready_2"), accepted: true))
        }
        cases.append(Case(name: "a space in a ref", op: .editCard(EditCard(card: "c2", ref: .set("JIRA 9"))), accepted: false))
        cases.append(Case(name: "spaces in a card title", op: .addCard(AddCard(card: "n1", title: "Fix the login page")), accepted: true))
        cases.append(Case(name: "an empty member name", op: .setMember(user: "bob", role: .editor, name: ""), accepted: true))
        for (field, make) in multiLine {
            cases.append(Case(name: "tab, LF and CR in a \(field)", op: make("one\ttwo\r\nthree\n"), accepted: true))
            for (what, text) in [("NUL", "a\u{0}b"), ("ESC", "a\u{1B}[31mb"), ("DEL", "a\u{7F}b"), ("U+2028", "a\u{2028}b")] {
                cases.append(Case(name: "\(what) in a \(field)", op: make(text), accepted: false))
            }
        }
        cases.append(Case(name: "an empty card description", op: .editCard(EditCard(card: "c3", description: "")), accepted: true))
        cases.append(Case(name: "an empty milestone description", op: .updateMilestone(milestone: "m1", title: nil, description: "", due: nil), accepted: true))
        cases.append(Case(name: "a comment of spaces", op: .addComment(card: "c1", comment: "k9", text: " \n "), accepted: false))
        cases.append(Case(name: "a chat of spaces", op: .chat(text: "\t"), accepted: false))
        return cases
    }()

    /// The message names the rule that was broken: a newline in a ref is a control character, not a space.
    @Test func aRefWithANewlineIsToldItIsNotOneLine() throws {
        let refusal = try #require(rejection(of: .editCard(EditCard(card: "c2", ref: .set("JIRA-9\nx"))), on: Fixtures.board))
        #expect(refusal.message == "ref must be one line without control characters")
        let space = try #require(rejection(of: .editCard(EditCard(card: "c2", ref: .set("JIRA 9"))), on: Fixtures.board))
        #expect(space.message == "ref must not contain spaces")
    }

    @Test(arguments: cases)
    func theRule(_ test: Case) throws {
        if test.accepted {
            _ = try accepted(test.op, on: Fixtures.board)
        } else {
            #expect(rejectionCode(of: test.op, on: Fixtures.board) == .invalid)
        }
    }
}
