import PropertyBased
import Testing

@testable import BoardCore

/// Milestone progress, label colours, days, timestamps and identifiers.
@Suite struct ModelTests {
    // MARK: Milestone progress

    @Test func progressCountsClosedCardsAndCardsInTheLastColumn() {
        // m1: c1 (todo, open), c4 (doing, open), c5 (done, closed).
        var board = Fixtures.board
        #expect(board.progress(of: "m1") == MilestoneProgress(done: 1, total: 3))
        #expect(board.progress(of: "m1").percent == 33)
        mustApply(.closeCard(card: "c1"), to: &board)
        #expect(board.progress(of: "m1") == MilestoneProgress(done: 2, total: 3), "closed anywhere is done")
        mustApply(.moveCard(card: "c4", column: "done", placement: .bottom), to: &board)
        #expect(board.progress(of: "m1") == MilestoneProgress(done: 3, total: 3), "open in the last column is done")
        #expect(board.progress(of: "m1").percent == 100)
    }

    @Test func progressLeavesArchivedCardsOut() {
        var board = Fixtures.board
        mustApply(.archiveCard(card: "c1"), to: &board)
        #expect(board.progress(of: "m1") == MilestoneProgress(done: 1, total: 2))
        #expect(board.progress(of: "m1").percent == 50)
        mustApply(.archiveCard(card: "c5"), to: &board)
        #expect(board.progress(of: "m1") == MilestoneProgress(done: 0, total: 1))
    }

    @Test func theLastColumnIsWhicheverIsRightmostNow() {
        var board = Fixtures.board
        mustApply(.reopenCard(card: "c5"), to: &board)
        #expect(board.progress(of: "m1").done == 1, "c5 is open but in the last column")
        mustApply(.addColumn(column: "shipped", name: "Shipped", index: nil), to: &board)
        #expect(board.progress(of: "m1").done == 0, "done is no longer the last column")
        mustApply(.moveColumn(column: "doing", index: 9), to: &board)
        #expect(board.progress(of: "m1").done == 1, "c4 is now in the last column")
    }

    @Test func anEmptyMilestoneIsAtZeroPercent() {
        #expect(Fixtures.board.progress(of: "m9") == MilestoneProgress(done: 0, total: 0))
        #expect(MilestoneProgress(done: 0, total: 0).percent == 0)
        #expect(MilestoneProgress(done: 2, total: 3).percent == 66)
    }

    // MARK: Label colours

    @Test func whiteTakesDarkTextAndBlackTakesLight() throws {
        let white = try #require(HexColor("#ffffff"))
        #expect(white.prefersDarkText)
        #expect(white.textColor == HexColor(red: 0, green: 0, blue: 0))
        #expect(white.luminance == 1)
        let black = try #require(HexColor("#000000"))
        #expect(!black.prefersDarkText)
        #expect(black.textColor == HexColor(red: 255, green: 255, blue: 255))
        #expect(black.luminance == 0)
    }

    @Test func greyAtTheBoundaryTakesDarkText() throws {
        let grey = try #require(HexColor("#808080"))
        #expect(grey.luminance > 0.5019 && grey.luminance < 0.502)  // 128 / 255
        #expect(grey.prefersDarkText)
        let darker = try #require(HexColor("#7f7f7f"))
        #expect(darker.luminance < 0.5)  // 127 / 255
        #expect(!darker.prefersDarkText)
        #expect(darker.textColor == HexColor("#FFFFFF"))
    }

    @Test func luminanceWeighsTheChannels() throws {
        #expect(try #require(HexColor("#ffff00")).prefersDarkText, "yellow: 0.886")
        #expect(try !#require(HexColor("#0000ff")).prefersDarkText, "blue: 0.114")
        #expect(try !#require(HexColor("#ff0000")).prefersDarkText, "red: 0.299")
        #expect(try #require(HexColor("#00ff00")).prefersDarkText, "green: 0.587")
        #expect(try !#require(HexColor("#d73a4a")).prefersDarkText)
    }

    @Test func hexColoursParseExactly() {
        #expect(HexColor("#0075CA") == HexColor(red: 0, green: 0x75, blue: 0xca))
        #expect(HexColor("#0075CA")?.description == "#0075ca")
        for bad in ["0075ca", "#075ca", "#0075ca0", "#0075cg", "", "#", " #0075ca", "#+75ca0"] {
            #expect(HexColor(bad) == nil, "\(bad)")
        }
    }

    @Test func hexColoursRoundTripThroughText() async {
        await propertyCheck(count: 200, input: Gen.uint8(in: 0...255), Gen.uint8(in: 0...255), Gen.uint8(in: 0...255)) {
            r, g, b in
            let color = HexColor(red: r, green: g, blue: b)
            #expect(HexColor(color.description) == color)
            #expect(color.prefersDarkText == (0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b) >= 127.5))
        }
    }

    // MARK: Days

    @Test func daysParseExactlyYYYYMMDD() {
        #expect(Day("2026-03-10") == Day(year: 2026, month: 3, day: 10))
        #expect(Day("2024-02-29") != nil, "leap year")
        #expect(Day("2000-02-29") != nil, "divisible by 400")
        #expect(Day("0001-01-01") != nil)
        #expect(Day("9999-12-31") != nil)
        for bad in [
            "2023-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00", "0000-01-01",
            "2026-1-01", "26-01-01", "2026/01/01", "20260101", " 2026-01-01", "2026-01-01 ", "2026-01-1a", "",
            "2026-٠١-01", "+026-01-01",
        ] {
            #expect(Day(bad) == nil, "\(bad)")
        }
    }

    @Test func daysPrintPadded() {
        #expect(Day(year: 7, month: 1, day: 2)?.description == "0007-01-02")
        #expect(Day(year: 2026, month: 12, day: 31)?.description == "2026-12-31")
    }

    @Test func addingDaysCrossesMonthsYearsAndLeapDays() throws {
        let feb28 = try #require(Day("2024-02-28"))
        #expect(feb28.adding(days: 1) == Day("2024-02-29"))
        #expect(feb28.adding(days: 2) == Day("2024-03-01"))
        #expect(try #require(Day("2023-02-28")).adding(days: 1) == Day("2023-03-01"))
        #expect(try #require(Day("2025-12-31")).adding(days: 1) == Day("2026-01-01"))
        #expect(try #require(Day("2026-01-01")).adding(days: -1) == Day("2025-12-31"))
        #expect(try #require(Day("2026-03-10")).adding(days: 365) == Day("2027-03-10"))
        #expect(try #require(Day("2026-03-10")).adding(days: 0) == Day("2026-03-10"))
        #expect(Day(daysSinceEpoch: 0) == Day("1970-01-01"))
        #expect(Day(daysSinceEpoch: -1) == Day("1969-12-31"))
        #expect(Day("2026-01-01")?.daysSinceEpoch == 20_454)
    }

    @Test func daysOrderChronologically() throws {
        #expect(try #require(Day("2025-12-31")) < #require(Day("2026-01-01")))
        #expect(try #require(Day("2026-01-09")) < #require(Day("2026-01-10")))
        #expect(try !(#require(Day("2026-02-01")) < #require(Day("2026-01-31"))))
    }

    @Test func dayArithmeticRoundTrips() async {
        // 0001-01-01 is day -719162 and 9999-12-31 is day 2932896.
        await propertyCheck(count: 300, input: Gen.int(in: -719_162...2_932_896), Gen.int(in: -1000...1000)) { n, k in
            let day = Day(daysSinceEpoch: n)
            #expect(day.daysSinceEpoch == n)
            #expect(Day(day.description) == day)
            #expect(Day(year: day.year, month: day.month, day: day.day) == day)
            #expect(day.adding(days: k).daysSinceEpoch == n + k)
            #expect((day < day.adding(days: k)) == (k > 0))
        }
    }

    // MARK: Timestamps

    @Test func timestampsFallOnTheirUTCDay() {
        #expect(Timestamp(milliseconds: 0).day == Day("1970-01-01"))
        #expect(Timestamp(milliseconds: 86_399_999).day == Day("1970-01-01"))
        #expect(Timestamp(milliseconds: 86_400_000).day == Day("1970-01-02"))
        #expect(Timestamp(milliseconds: -1).day == Day("1969-12-31"))
        #expect(Timestamp(milliseconds: -86_400_000).day == Day("1969-12-31"))
        #expect(Timestamp(milliseconds: -86_400_001).day == Day("1969-12-30"))
        #expect(Timestamp(milliseconds: Fixtures.t0).day == Day("2026-01-01"))
        #expect(Timestamp(milliseconds: Fixtures.t0 - 1).day == Day("2025-12-31"))
    }

    @Test func timestampDaysAgreeWithDayArithmetic() async {
        await propertyCheck(count: 200, input: Gen.int64(in: -100_000_000_000_000...100_000_000_000_000)) { ms in
            let day = Timestamp(milliseconds: ms).day
            let start = Int64(day.daysSinceEpoch) * 86_400_000
            #expect(start <= ms && ms < start + 86_400_000)
        }
    }

    // MARK: Identifiers

    @Test func identifiersAreOneToSixtyFourSafeCharacters() {
        for good in ["a", "c1", "card-1_x.y", "ABC", String(repeating: "z", count: 64), "0", "-", "."] {
            #expect(CardID.isWellFormed(good), "\(good)")
            #expect(CardID(validating: good)?.rawValue == good)
        }
        for bad in ["", "a b", "a/b", "é", "a\n", String(repeating: "z", count: 65), "a:b", "#1", "ü1", "a\u{0}"] {
            #expect(!CardID.isWellFormed(bad), "\(bad)")
            #expect(CardID(validating: bad) == nil)
            #expect(!CardID(bad).isValid)
        }
    }

    @Test func identifiersOrderByteWise() {
        #expect(CardID("B") < CardID("a"))
        #expect(CardID("a") < CardID("aa"))
        #expect(CardID("c10") < CardID("c9"))
        #expect(!(CardID("x") < CardID("x")))
    }
}
