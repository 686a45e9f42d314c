import PropertyBased
import Testing

@testable import BoardCore

/// Generators of query values and terms, mixing the fixture's vocabulary with awkward random text.
enum QueryGen {
    /// Characters that stress quoting: spaces, quotes, backslashes, `|`, `:`, leading `-`/`@`/`#`, accents.
    static let alphabet: [Character] = Array("abcXYZ019 \t\"\\|:-@#*?<>é") + ["\u{301}"]

    /// Fixture names, keywords and look-alikes.
    static let vocabulary = [
        "me", "none", "ME", "None", "bug", "Bug", "UI", "l-ui", "needs review", "alice", "BOB", "carol", "todo",
        "DOING", "qa", "In review", "v1.0", "m2", "JIRA-*", "JIRA-?", "*", "ci:*", "login", "12", "#3", "-x", "",
        "a b", "\"", "is:archived", "open",
    ]

    /// Value text: a vocabulary entry two times in three, otherwise 0...6 random characters.
    static let text = zip(
        Gen.int(in: 0...2), Gen.element(of: vocabulary), Gen.element(of: alphabet).array(of: 0...6)
    ).map { t -> String in
        t.0 == 0 ? String(t.2.compactMap { $0 }) : (t.1 ?? "")
    }

    /// A term that is not a negation.
    static let positiveTerm = zip(
        Gen.int(in: 0...10), text.array(of: 1...3), Gen.int(in: -10...10).array(of: 1...3), Gen.int(in: 0...20)
    ).map { t -> QueryTerm in
        let (kind, texts, offsets, n) = t
        switch kind {
        case 0: return .word(texts[0])
        case 1: return .number(n)
        case 2: return .label(texts)
        case 3:
            return .assignee(texts.enumerated().map { i, s in [.me, .none, .user(s), .user(s)][(n + i) % 4] })
        case 4:
            return .due(offsets.enumerated().map { i, o in due(kind: n + 3 * i, offset: o) })
        case 5: return .status(offsets.map { $0 % 2 == 0 ? .open : .closed })
        case 6: return .column(texts)
        case 7: return .milestone(texts.enumerated().map { i, s in (n + i) % 3 == 0 ? .none : .named(s) })
        case 8: return .ref(texts)
        case 9: return .archived
        default: return .word(texts.joined(separator: " "))
        }
    }

    /// A term, negated one time in three.
    static let term = zip(positiveTerm, Gen.int(in: 0...2)).map { t -> QueryTerm in t.1 == 0 ? .not(t.0) : t.0 }

    /// A `due:` alternative: one of the ten forms, dates within ten days of the fixture's today.
    static func due(kind: Int, offset: Int) -> QueryTerm.DueValue {
        let day = QueryFixture.today.adding(days: offset)
        let all: [QueryTerm.DueValue] = [
            .overdue, .today, .week, .none, .any, .on(day), .before(day), .onOrBefore(day), .after(day),
            .onOrAfter(day),
        ]
        return all[kind % all.count]
    }

    /// Query-ish text: 0...24 characters from the alphabet plus field syntax fragments.
    static let queryText = Gen.element(
        of: ["label:", "@", "due:", "is:", "status:", "-", "|", "\"", "\\", " ", "#", "open", "me", "x", "2026-03-10",
             "<", "lable:", "none", "é", "\u{301}"]
    ).array(of: 0...12).map { parts in parts.compactMap { $0 }.joined() }
}

/// Invariants of parsing, printing and matching.
@Suite struct QueryPropertyTests {
    @Test func printedGeneratedTermsParseBackToThemselves() async {
        await propertyCheck(count: 300, input: QueryGen.term.array(of: 0...5)) { terms in
            let query = Query(terms: terms)
            let text = query.description
            let parsed = QueryFixture.parseError(text).map { "error: \($0)" }
            #expect(parsed == nil, "\(text)")
            #expect((try? Query.parse(text)) == query, "\(text)")
            #expect((try? Query.parse(text))?.description == text)
        }
    }

    @Test func aTermAndItsNegationPartitionTheUnarchivedCards() async {
        let board = QueryFixture.board
        await propertyCheck(count: 300, input: QueryGen.positiveTerm, Gen.bool) { term, asAlice in
            let context = QueryContext(today: QueryFixture.today, me: asAlice ? "alice" : nil)
            guard let plain = try? Query.parse(term.description), let negated = try? Query.parse("-\(term)") else {
                Issue.record("\(term) did not parse")
                return
            }
            for card in board.orderedCards where !card.archived {
                let yes = plain.matches(card, in: board, context: context)
                let no = negated.matches(card, in: board, context: context)
                #expect(yes != no, "\(term) on #\(card.number)")
            }
            #expect(plain.filter(board, context: context).count + negated.filter(board, context: context).count
                == QueryFixture.unarchived.count + (term == .archived ? 1 : 0))
        }
    }

    @Test func anyTextEitherParsesCanonicallyOrFailsInsideIt() async {
        await propertyCheck(count: 300, input: QueryGen.queryText) { text in
            do throws(QueryError) {
                let query = try Query.parse(text)
                #expect((try? Query.parse(query.description)) == query, "\(text) -> \(query)")
            } catch {
                #expect((0...text.count).contains(error.position), "\(text): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func filterReturnsExactlyTheMatchingCardsInBoardOrder() async {
        let board = QueryFixture.board
        await propertyCheck(count: 300, input: QueryGen.term.array(of: 0...3)) { terms in
            let query = Query(terms: terms)
            let cards = query.filter(board, context: QueryFixture.context)
            let matching = board.cards.values.filter { query.matches($0, in: board, context: QueryFixture.context) }
            #expect(Set(cards.map(\.id)) == Set(matching.map(\.id)))
            #expect(cards.count == matching.count)
            #expect(cards.allSatisfy { $0.archived == query.selectsArchived })
            for (a, b) in zip(cards, cards.dropFirst()) {
                let (ca, cb) = (board.columnIndex(a.column) ?? .max, board.columnIndex(b.column) ?? .max)
                #expect(ca < cb || (ca == cb && Card.positionOrder(a, b)), "#\(a.number) before #\(b.number)")
            }
        }
    }
}
