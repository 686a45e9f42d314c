import BoardCore
import Foundation
import Testing

@testable import CorkApp

@Suite struct BoardExportTests {
    /// The standard board plus a card with a hostile title and description, a due date, two labels, two
    /// assignees, a milestone and a ref; c2 closed and archived.
    static func board() -> Board {
        var t = TestBoard.standard()
        t.apply(.addCard(AddCard(
            card: "c4", column: "done", title: "Fix \"quoted\", comma; and ünïcode 🐛",
            description: "line one\r\nline \"two\",\nend", due: Day("2026-03-01"), labels: ["bug", "docs"],
            assignees: ["bob", "alice"], milestone: "v1", ref: "GH-4")))
        t.apply(.closeCard(card: "c2"))
        t.apply(.archiveCard(card: "c2"))
        return t.board
    }

    @Test func csvFieldEscaping() {
        #expect(BoardExport.csvField("plain") == "plain")
        #expect(BoardExport.csvField("") == "")
        #expect(BoardExport.csvField("a,b") == "\"a,b\"")
        #expect(BoardExport.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(BoardExport.csvField("one\ntwo") == "\"one\ntwo\"")
        #expect(BoardExport.csvField("one\rtwo") == "\"one\rtwo\"")
        #expect(BoardExport.csvField("\"") == "\"\"\"\"")
        #expect(BoardExport.csvField("ünïcode 🐛; semi") == "ünïcode 🐛; semi")
        #expect(BoardExport.csvField("x\r\n") == "\"x\r\n\"")
    }

    @Test func csvHasAHeaderAndOneRowPerCardInBoardOrder() throws {
        let csv = BoardExport.csv(Self.board())
        let rows = try parseCSV(csv)
        #expect(rows.first == BoardExport.csvHeader)
        #expect(rows.count == 5)
        #expect(rows.dropFirst().map { $0[1] } == ["c1", "c2", "c3", "c4"])
        #expect(rows.allSatisfy { $0.count == BoardExport.csvHeader.count })
        #expect(csv.hasSuffix("\r\n"))
    }

    @Test func csvRowsCarryNamesDatesAndTimestamps() throws {
        let rows = try parseCSV(BoardExport.csv(Self.board()))
        let c4 = try #require(rows.first { $0[1] == "c4" })
        let byName = Dictionary(uniqueKeysWithValues: zip(BoardExport.csvHeader, c4))
        #expect(byName["number"] == "4")
        #expect(byName["column"] == "DONE")
        #expect(byName["title"] == "Fix \"quoted\", comma; and ünïcode 🐛")
        #expect(byName["description"] == "line one\r\nline \"two\",\nend")
        #expect(byName["labels"] == "bug;Docs")
        #expect(byName["assignees"] == "alice;bob")
        #expect(byName["due"] == "2026-03-01")
        #expect(byName["milestone"] == "v1.0")
        #expect(byName["closed"] == "false")
        #expect(byName["archived"] == "false")
        #expect(byName["ref"] == "GH-4")
        #expect(byName["created_by"] == "alice")
        // TestBoard stamps seq N at t0 + N seconds; standard() uses 9 seqs, so c4 is seq 10.
        #expect(byName["created_at"] == "2026-01-01T00:00:10Z")
        let c2 = try #require(rows.first { $0[1] == "c2" })
        #expect(c2[9] == "true")
        #expect(c2[10] == "true")
        #expect(c2[14] == "2026-01-01T00:00:12Z")
    }

    @Test func csvRawTextOfTheHostileRowIsEscapedExactly() {
        let csv = BoardExport.csv(Self.board())
        #expect(csv.contains(
            "4,c4,DONE,\"Fix \"\"quoted\"\", comma; and ünïcode 🐛\",\"line one\r\nline \"\"two\"\",\nend\",bug;Docs,alice;bob,"
                + "2026-03-01,v1.0,false,false,GH-4,alice,2026-01-01T00:00:10Z,2026-01-01T00:00:10Z\r\n"))
    }

    @Test func formulaNeutralizingIsOptIn() throws {
        var t = TestBoard.standard()
        t.apply(.addCard(AddCard(card: "c4", title: "=HYPERLINK(\"http://x\")")))
        t.apply(.addCard(AddCard(card: "c5", title: "@alice -1 +2")))
        let plain = try parseCSV(BoardExport.csv(t.board))
        #expect(plain.contains { $0[3] == "=HYPERLINK(\"http://x\")" })
        let guarded = try parseCSV(BoardExport.csv(t.board, neutralizeFormulas: true))
        #expect(guarded.contains { $0[3] == "'=HYPERLINK(\"http://x\")" })
        #expect(guarded.contains { $0[3] == "'@alice -1 +2" })
        #expect(guarded.contains { $0[3] == "Login bug" })
    }

    @Test func iso8601InUTC() {
        #expect(BoardExport.iso8601(Timestamp(milliseconds: 0)) == "1970-01-01T00:00:00Z")
        #expect(BoardExport.iso8601(Timestamp(milliseconds: 1_767_261_670_999)) == "2026-01-01T10:01:10Z")
        #expect(BoardExport.iso8601(Timestamp(milliseconds: -1)) == "1969-12-31T23:59:59Z")
        #expect(BoardExport.iso8601(Timestamp(milliseconds: 951_782_400_000)) == "2000-02-29T00:00:00Z")
    }

    @Test func jsonIsTheSnapshotAndRoundTrips() throws {
        let board = Self.board()
        let data = try BoardExport.json(board)
        #expect(try JSONDecoder().decode(Board.self, from: data) == board)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == [
            "id", "name", "seq", "columns", "cards", "labels", "milestones", "members", "next_card_number", "purged",
        ])
        let cards = try #require(object["cards"] as? [[String: Any]])
        #expect(cards.map { $0["id"] as? String } == ["c1", "c2", "c3", "c4"])
        #expect(cards[3]["due"] as? String == "2026-03-01")
        #expect(cards[3]["created_at"] as? Int == 1_767_225_610_000)
        #expect(cards[0]["milestone"] == nil, "absent optional fields are left out")
    }
}

/// A strict RFC 4180 reader for the tests: CRLF between records, quoted fields with doubled quotes.
func parseCSV(_ text: String) throws -> [[String]] {
    struct Malformed: Error {}
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var scalars = Array(text.unicodeScalars)[...]
    var atFieldStart = true
    while let c = scalars.popFirst() {
        if atFieldStart && c == "\"" {
            while true {
                guard let q = scalars.popFirst() else { throw Malformed() }
                if q == "\"" {
                    if scalars.first == "\"" { scalars.removeFirst(); field.unicodeScalars.append("\"") } else { break }
                } else {
                    field.unicodeScalars.append(q)
                }
            }
            atFieldStart = false
            guard let next = scalars.first, next == "," || next == "\r" else { throw Malformed() }
            continue
        }
        switch c {
        case ",":
            row.append(field); field = ""; atFieldStart = true
        case "\r":
            guard scalars.popFirst() == "\n" else { throw Malformed() }
            row.append(field); rows.append(row); row = []; field = ""; atFieldStart = true
        case "\"", "\n":
            throw Malformed()
        default:
            field.unicodeScalars.append(c); atFieldStart = false
        }
    }
    guard row.isEmpty, field.isEmpty else { throw Malformed() }
    return rows
}
