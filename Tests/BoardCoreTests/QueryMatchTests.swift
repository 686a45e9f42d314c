import Testing

@testable import BoardCore

/// The numbers of the cards `text` selects on the fixture board.
private func numbers(_ text: String, me: UserID? = "alice") throws -> [Int] {
    try QueryFixture.numbers(text, me: me)
}

/// Which cards each filter selects on `QueryFixture.board`.
@Suite struct QueryMatchTests {
    @Test func emptyQueryMatchesEveryUnarchivedCardInBoardOrder() throws {
        #expect(try numbers("") == QueryFixture.unarchived)
        #expect(try numbers(" \t ") == QueryFixture.unarchived)
    }

    @Test func wordMatchesTitleIgnoringCase() throws {
        #expect(try numbers("LOGIN") == [1])
        #expect(try numbers("zebra") == [])
    }

    @Test func wordMatchesDescriptionAndRef() throws {
        #expect(try numbers("dark") == [2])
        #expect(try numbers("build-7") == [3])
        #expect(try numbers("jira-7") == [4])
    }

    @Test func quotedPhraseIsOneWord() throws {
        #expect(try numbers(#""login bug""#) == [1])
        #expect(try numbers(#""bug login""#) == [])
        #expect(try numbers("bug login") == [1])
    }

    @Test func hashNumberMatchesOnlyThatCard() throws {
        #expect(try numbers("#12") == [12])
        #expect(try numbers("#2") == [2])
        #expect(try numbers("#99") == [])
    }

    @Test func digitWordMatchesTheNumberOrText() throws {
        // #12 by number, #8 by title, #1 and #6 by ref.
        #expect(try numbers("12") == [1, 12, 6, 8])
        #expect(try numbers("9") == [9])
    }

    @Test func labelByNameOrIdIgnoringCase() throws {
        #expect(try numbers("label:bug") == [1, 6, 4])
        #expect(try numbers("label:L-UI") == [2, 6])
        #expect(try numbers(#"label:"needs review""#) == [3])
        #expect(try numbers("label:nope") == [])
    }

    @Test func labelAlternatives() throws {
        #expect(try numbers(#"label:ui|"needs review""#) == [2, 3, 6])
        #expect(try numbers("label:nope|ui") == [2, 6])
    }

    @Test func assigneeByIdIgnoringCase() throws {
        #expect(try numbers("@bob") == [2, 4])
        #expect(try numbers("assignee:ALICE") == [1, 4])
        #expect(try numbers("@dave") == [])
        #expect(try numbers("@bob|carol") == [2, 6, 4])
    }

    @Test func assigneeMeUsesTheContext() throws {
        #expect(try numbers("@me") == [1, 4])
        #expect(try numbers("assignee:me", me: "carol") == [6])
        #expect(try numbers("@me", me: nil) == [])
        #expect(try numbers("@me|carol") == [1, 6, 4])
    }

    @Test func assigneeNoneMatchesUnassignedCards() throws {
        #expect(try numbers("assignee:none") == [12, 3, 8, 7, 9])
        #expect(try numbers("-assignee:none") == [2, 1, 6, 4])
    }

    @Test func overdueNeedsAnOpenCardDueBeforeToday() throws {
        // #4 is due before today but closed; #6 is due today.
        #expect(try numbers("due:overdue") == [1])
        #expect(try numbers("is:overdue") == [1])
        #expect(try numbers("due:<2026-03-10") == [1, 4])
    }

    @Test func aCardInTheLastColumnIsDoneSoNeverOverdue() throws {
        // #9 is open in the last column (In review), #8 open in DOING; both were due yesterday.
        var board = QueryFixture.board
        board.cards["c9"]?.due = QueryFixture.today.adding(days: -1)
        board.cards["c8"]?.due = QueryFixture.today.adding(days: -1)
        let overdue = try Query.parse("due:overdue").filter(board, context: QueryFixture.context).map(\.number)
        #expect(overdue == [1, 8])
        #expect(board.isDone(board.cards["c9"]!) && !board.isOverdue(board.cards["c9"]!, today: QueryFixture.today))
        // The milestone's progress counts it done by the same rule.
        board.cards["c9"]?.milestone = "m2"
        #expect(board.progress(of: "m2") == MilestoneProgress(done: 1, total: 2))
    }

    @Test func dueToday() throws {
        #expect(try numbers("due:today") == [6])
        #expect(try numbers("due:today") == (try numbers("due:2026-03-10")))
    }

    @Test func dueWeekRunsFromTodayToSixDaysLater() throws {
        // #6 today and #2 today+6 are in; #1 yesterday and #7 today+7 are out.
        #expect(try numbers("due:week") == [2, 6])
        let later = QueryContext(today: QueryFixture.today.adding(days: 1), me: nil)
        let week = try Query.parse("due:week").filter(QueryFixture.board, context: later).map(\.number)
        #expect(week == [2, 7])
    }

    @Test func dueNoneAndAnySplitTheCards() throws {
        #expect(try numbers("due:none") == [12, 3, 8, 9])
        #expect(try numbers("due:any") == [2, 1, 6, 4, 7])
        #expect(try numbers("due:none|any") == QueryFixture.unarchived)
    }

    @Test func dueComparesDates() throws {
        #expect(try numbers("due:2026-03-01") == [4])
        #expect(try numbers("due:<=2026-03-10") == [1, 6, 4])
        #expect(try numbers("due:>2026-03-10") == [2, 7])
        #expect(try numbers("due:>=2026-03-16") == [2, 7])
        #expect(try numbers("due:>=2026-03-17") == [7])
        #expect(try numbers("due:<2026-03-01") == [])
    }

    @Test func statusAndIsOpenClosed() throws {
        #expect(try numbers("status:open") == [2, 1, 12, 3, 6, 8, 9])
        #expect(try numbers("status:closed") == [4, 7])
        #expect(try numbers("is:closed") == [4, 7])
        #expect(try numbers("is:open") == (try numbers("status:open")))
        #expect(try numbers("status:open|closed") == QueryFixture.unarchived)
    }

    @Test func columnByNameOrIdIgnoringCase() throws {
        #expect(try numbers("column:DOING") == [3, 6, 8])
        #expect(try numbers("column:QA") == [9])
        #expect(try numbers(#"column:"in REVIEW""#) == [9])
        #expect(try numbers("column:todo|doing") == [2, 1, 12, 3, 6, 8])
        #expect(try numbers("column:nope") == [])
    }

    @Test func milestoneByTitleOrId() throws {
        #expect(try numbers("milestone:V1.0") == [1, 6])
        #expect(try numbers(#"milestone:"beta 2""#) == [2])
        #expect(try numbers("milestone:m2") == [2])
        #expect(try numbers("milestone:v1.0|m2") == [2, 1, 6])
    }

    @Test func milestoneNoneAndAMilestoneTitledNone() throws {
        #expect(try numbers("milestone:none") == [12, 3, 8, 4, 9])
        #expect(try numbers("milestone:NONE") == [12, 3, 8, 4, 9])
        #expect(try numbers(#"milestone:"none""#) == [7])
    }

    @Test func refGlobIsCaseSensitive() throws {
        #expect(try numbers("ref:JIRA-*") == [1, 6, 4])
        #expect(try numbers("ref:JIRA-?") == [4])
        #expect(try numbers("ref:JIRA-1?") == [1])
        #expect(try numbers("ref:jira-*") == [])
        #expect(try numbers("ref:ci:build-*") == [3])
        #expect(try numbers("ref:JIRA-12") == [1])
    }

    @Test func cardsWithoutARefNeverMatchRef() throws {
        #expect(try numbers("ref:*") == [1, 3, 6, 4])
        #expect(try numbers("-ref:*") == [2, 12, 8, 7, 9])
    }

    @Test func archivedCardsOnlyWithIsArchived() throws {
        #expect(try !numbers("").contains(5))
        #expect(try numbers("login") == [1])
        #expect(try numbers("is:archived") == [5])
        #expect(try numbers("IS:Archived login") == [5])
        #expect(try numbers("is:archived label:ui") == [])
        #expect(try numbers("-is:archived") == QueryFixture.unarchived)
    }

    @Test func negationInvertsEachKindOfTerm() throws {
        #expect(try numbers("-label:bug") == [2, 12, 3, 8, 7, 9])
        #expect(try numbers("-@bob") == [1, 12, 3, 6, 8, 7, 9])
        #expect(try numbers("-login") == [2, 12, 3, 6, 8, 4, 7, 9])
        #expect(try numbers("-#12") == [2, 1, 3, 6, 8, 4, 7, 9])
        #expect(try numbers("-status:open") == [4, 7])
    }

    @Test func termsAreAnded() throws {
        #expect(try numbers("label:bug @alice") == [1, 4])
        #expect(try numbers("label:bug @alice is:open") == [1])
        #expect(try numbers("label:bug -label:ui column:doing") == [])
    }

    @Test func fieldNamesAndKeywordsIgnoreCase() throws {
        #expect(try numbers("LABEL:Bug Status:OPEN") == [1, 6])
        #expect(try numbers("DUE:TODAY") == [6])
        #expect(try numbers("Assignee:ME") == [1, 4])
    }

    @Test func matchesAgreesWithFilterForASingleCard() throws {
        let query = try Query.parse("label:bug")
        let board = QueryFixture.board
        let card = try #require(board.card(number: 6))
        let unlabeled = try #require(board.card(number: 7))
        #expect(query.matches(card, in: board, context: QueryFixture.context))
        #expect(!query.matches(unlabeled, in: board, context: QueryFixture.context))
    }

    @Test func globHandlesStarsAndQuestionMarks() {
        func glob(_ pattern: String, _ text: String) -> Bool { QueryTerm.glob(Array(pattern), matches: Array(text)) }
        #expect(glob("a*b*c", "aXXbYc"))
        #expect(glob("*", ""))
        #expect(glob("**a", "a"))
        #expect(!glob("?", ""))
        #expect(!glob("a*", "ba"))
        #expect(glob("*-?", "JIRA-7"))
        #expect(!glob("*-?", "JIRA-12"))
        #expect(!glob("abc", "abcd"))
    }
}
