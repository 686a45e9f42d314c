import Testing

@testable import BoardCore

/// Parsing query text into terms, and printing it back canonically.
@Suite struct QueryParseTests {
    @Test func emptyTextParsesToTheEmptyQuery() throws {
        #expect(try Query.parse("") == Query())
        #expect(try Query.parse(" \t\n ") == Query.all)
        #expect(Query().description == "")
        #expect(try Query.parse("").isEmpty)
    }

    @Test func parsesEveryKindOfTerm() throws {
        let day = try #require(Day("2026-12-01"))
        let query = try Query.parse(
            #"login "a b" #7 label:bug|ui @me assignee:none|Bob due:overdue|<2026-12-01 due:>=2026-12-01 "#
                + #"status:closed is:open column:DOING milestone:"v1.0"|none ref:JIRA-* is:archived -@bob"#)
        #expect(
            query.terms == [
                .word("login"), .word("a b"), .number(7), .label(["bug", "ui"]), .assignee([.me]),
                .assignee([.none, .user("Bob")]), .due([.overdue, .before(day)]), .due([.onOrAfter(day)]),
                .status([.closed]), .status([.open]), .column(["DOING"]), .milestone([.named("v1.0"), .none]),
                .ref(["JIRA-*"]), .archived, .not(.assignee([.user("bob")])),
            ])
    }

    @Test func isAliasesParseToTheirCanonicalTerms() throws {
        #expect(try Query.parse("is:overdue").terms == [.due([.overdue])])
        #expect(try Query.parse("is:open|CLOSED").terms == [.status([.open, .closed])])
        #expect(try Query.parse("@alice").terms == (try Query.parse("assignee:alice").terms))
    }

    @Test func noIsTheNoneOfMilestoneDueAndAssignee() throws {
        #expect(try Query.parse("no:milestone").terms == [.milestone([.none])])
        #expect(try Query.parse("NO:Due -no:assignee").terms == [.due([.none]), .not(.assignee([.none]))])
        #expect(try Query.parse("no:milestone").description == "milestone:none")
    }

    @Test func quotedValuesUndoEscapes() throws {
        let query = try Query.parse(#""say \"hi\" \\ now" label:"a\"b""#)
        #expect(query.terms == [.word(#"say "hi" \ now"#), .label([#"a"b"#])])
        #expect(query.description == #""say \"hi\" \\ now" label:"a\"b""#)
    }

    @Test func quotedKeywordsAreLiteral() throws {
        #expect(
            try Query.parse(#"@"me" assignee:"NONE""#).terms == [.assignee([.user("me")]), .assignee([.user("NONE")])])
        #expect(try Query.parse(#"milestone:"none""#).terms == [.milestone([.named("none")])])
        #expect(try Query.parse(##""#12" "label:bug""##).terms == [.word("#12"), .word("label:bug")])
        #expect(try Query.parse(#"label:"bug|ui""#).terms == [.label(["bug|ui"])])
    }

    @Test func hashWithoutDigitsIsAWord() throws {
        #expect(try Query.parse("#abc #007 # #-1").terms == [.word("#abc"), .number(7), .word("#"), .word("#-1")])
        #expect(try Query.parse("#99999999999999999999999").terms == [.word("#99999999999999999999999")])
    }

    @Test func canonicalTextLowercasesFieldsAndQuotesOnlyWhenNeeded() throws {
        let query = try Query.parse(
            #"@Alice  LABEL:bug|"needs review" -IS:Archived is:OPEN is:overdue DUE:<=2026-03-01 "#
                + ##""#12" "a|b" milestone:"v1.0" assignee:"me" milestone:"none" Column:"x""##)
        #expect(
            query.description
                == #"assignee:Alice label:bug|"needs review" -is:archived is:open due:overdue due:<=2026-03-01 "#
                + ##""#12" "a|b" milestone:v1.0 assignee:"me" milestone:"none" column:x"##)
    }

    @Test func wordsThatWouldReadAsSomethingElseAreQuoted() throws {
        let words = ["label:bug", "-x", "@x", "#12", "", "a b", "x|y", "tab\there", #"back\slash"#, #"q"uote"#]
        for word in words {
            let text = QueryTerm.word(word).description
            #expect(text.hasPrefix("\""), "\(word) printed as \(text)")
            #expect(try Query.parse(text).terms == [.word(word)])
        }
        #expect(QueryTerm.word("plain-word.1").description == "plain-word.1")
        #expect(QueryTerm.label(["-x", "@y", "ok"]).description == #"label:"-x"|"@y"|ok"#)
    }

    @Test func combiningMarkAfterAQuoteStaysInsideTheValue() throws {
        let accent = "\u{301}x"
        let term = QueryTerm.word(" " + accent)
        #expect(try Query.parse(term.description).terms == [term])
        #expect(try Query.parse("label:" + accent).terms == [.label([accent])])
    }
}

/// One malformed query and what parsing it must report.
struct QueryErrorCase: Sendable, CustomTestStringConvertible {
    let text: String
    let code: QueryError.Code
    let position: Int
    let description: String

    var testDescription: String { text }
}

/// Every error, with its message and position.
@Suite struct QueryErrorTests {
    static let cases: [QueryErrorCase] = [
        .init(text: "lable:bug", code: .unknownFilter, position: 0,
              description: #"unknown filter "lable" at character 1 (did you mean label?)"#),
        .init(text: "x -Colum:todo", code: .unknownFilter, position: 3,
              description: #"unknown filter "Colum" at character 4 (did you mean column?)"#),
        .init(text: "mile:v1", code: .unknownFilter, position: 0,
              description: #"unknown filter "mile" at character 1 (did you mean milestone?)"#),
        .init(text: "foo:bar", code: .unknownFilter, position: 0,
              description: #"unknown filter "foo" at character 1 (filters are label, assignee, due, status, is, no, column, "#
                + #"milestone, ref, blocks; quote text that contains ":")"#),
        .init(text: #"title "login bug"#, code: .unterminatedQuote, position: 6,
              description: "unterminated quote at character 7"),
        .init(text: #"label:"v1\"#, code: .unterminatedQuote, position: 6, description: "unterminated quote at character 7"),
        .init(text: #""a\nb""#, code: .badEscape, position: 2,
              description: #"bad escape "\n" at character 3 (only \" and \\ are allowed in quotes)"#),
        .init(text: "due:2026-13-01", code: .badValue, position: 4,
              description: #"bad date "2026-13-01" in due: at character 5 (expected overdue, today, week, none, any, or a date YYYY-MM-DD, with < <= > or >= before it to compare)"#),
        .init(text: "due:today|<=tomorrow", code: .badValue, position: 12,
              description: #"bad date "tomorrow" in due: at character 13 (expected overdue, today, week, none, any, or a date YYYY-MM-DD, with < <= > or >= before it to compare)"#),
        .init(text: "label:", code: .emptyValue, position: 0, description: "empty value for label: at character 1"),
        .init(text: "a -label: b", code: .emptyValue, position: 3, description: "empty value for label: at character 4"),
        .init(text: "a @", code: .emptyValue, position: 2, description: "empty value for @ at character 3"),
        .init(text: "label:bug|", code: .emptyValue, position: 9,
              description: #"empty alternative after "|" in label: at character 10"#),
        .init(text: "status:opne", code: .badValue, position: 7,
              description: #"status must be open or closed, not "opne" at character 8"#),
        .init(text: "is:new", code: .badValue, position: 3,
              description: #"is must be open, closed, archived, overdue or blocked, not "new" at character 4"#),
        .init(text: "is:archived|open", code: .badValue, position: 0,
              description: "is:archived cannot have alternatives at character 1"),
        .init(text: "no:label", code: .badValue, position: 3,
              description: #"no: must be milestone, due, assignee, not "label" at character 4"#),
        .init(text: "no:due|milestone", code: .badValue, position: 7,
              description: "no: takes one of milestone, due, assignee, without alternatives at character 8"),
        .init(text: "a - b", code: .badNegation, position: 2, description: #"nothing to negate after "-" at character 3"#),
        .init(text: "--x", code: .badNegation, position: 0,
              description: #"double negation at character 1 (use one "-", or quote a word that starts with "-")"#),
        .init(text: #"foo"bar"#, code: .strayQuote, position: 3,
              description: "unexpected quote at character 4 (quote the whole value)"),
        .init(text: #""a"b"#, code: .strayQuote, position: 3,
              description: "text after closing quote at character 4 (add a space or quote the whole value)"),
        // Positions count characters: "e\u{301}" is one character but two scalars.
        .init(text: "e\u{301}e lable:x", code: .unknownFilter, position: 3,
              description: #"unknown filter "lable" at character 4 (did you mean label?)"#),
    ]

    @Test(arguments: cases) func reportsMessageAndPosition(_ c: QueryErrorCase) throws {
        let error = try #require(QueryFixture.parseError(c.text))
        #expect(error.code == c.code)
        #expect(error.position == c.position)
        #expect(error.description == c.description)
    }

    @Test func messageOmitsThePositionAndHint() throws {
        let error = try #require(QueryFixture.parseError("lable:bug"))
        #expect(error.message == #"unknown filter "lable""#)
        #expect(error.hint == "did you mean label?")
        #expect(QueryError(.badValue, "x", at: 4).description == "x at character 5", "counted from 1")
    }

    @Test func typedThrowsCarryTheError() {
        #expect(throws: QueryError.self) { try Query.parse("\"") }
        #expect(throws: Never.self) { try Query.parse("\"\"") }
    }
}
