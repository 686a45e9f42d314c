import BoardCore
import Foundation
import Testing

@testable import CorkApp

@Suite struct LabelPaletteTests {
    @Test func knownNamesGetGitHubColours() {
        #expect(LabelPalette.color(forName: "bug").description == "#d73a4a")
        #expect(LabelPalette.color(forName: " Bug ").description == "#d73a4a")
        #expect(LabelPalette.color(forName: "docs").description == "#0075ca")
        #expect(LabelPalette.color(forName: "documentation").description == "#0075ca")
        #expect(LabelPalette.color(forName: "enhancement").description == "#a2eeef")
        #expect(LabelPalette.color(forName: "FEATURE").description == "#a2eeef")
        #expect(LabelPalette.color(forName: "question").description == "#d876e3")
    }

    @Test func otherNamesGetAStablePalettePick() {
        // FNV-1a is fixed: these values pin it, so a change to the hash (or to hashValue) fails here.
        #expect(LabelPalette.stableHash("") == 0xcbf2_9ce4_8422_2325)
        #expect(LabelPalette.stableHash("a") == 0xaf63_dc4c_8601_ec8c)
        let color = LabelPalette.color(forName: "backend")
        #expect(LabelPalette.palette.contains(color))
        #expect(LabelPalette.color(forName: "Backend") == color)
        let index = Int(LabelPalette.stableHash("backend") % UInt64(LabelPalette.palette.count))
        #expect(color == LabelPalette.palette[index])
    }

    @Test func namesSpreadOverThePalette() {
        let names = (0..<200).map { "label-\($0)" }
        let used = Set(names.map(LabelPalette.color(forName:)))
        #expect(used.count >= LabelPalette.palette.count - 2)
    }

    @Test func labelIDsFromNames() {
        #expect(LabelPalette.labelID(forName: "Bug") == "bug")
        #expect(LabelPalette.labelID(forName: "good first issue") == "good-first-issue")
        #expect(LabelPalette.labelID(forName: "C++ / UI") == "c-----ui")
        #expect(LabelPalette.labelID(forName: "v1.0_rc") == "v1.0_rc")
        #expect(LabelPalette.labelID(forName: "Ünïcode 🐛") == "-n-code--")
        #expect(LabelPalette.labelID(forName: "   ") == "label")
        let long = LabelPalette.labelID(forName: String(repeating: "x", count: 100))
        #expect(long.rawValue.count == 64)
        for name in ["Bug", "C++ / UI", "Ünïcode 🐛", "", String(repeating: "é", count: 80)] {
            #expect(LabelPalette.labelID(forName: name).isValid, "\(name)")
        }
    }

    @Test func newLabelIDAvoidsTakenIDs() {
        var t = TestBoard.standard()
        #expect(LabelPalette.newLabelID(forName: "BUG", on: t.board) == "bug-2")
        #expect(LabelPalette.newLabelID(forName: "perf", on: t.board) == "perf")
        t.apply(.createLabel(label: "bug-2", name: "Bug two", color: LabelPalette.color(forName: "x")))
        #expect(LabelPalette.newLabelID(forName: "bug", on: t.board) == "bug-3")
        let long = String(repeating: "y", count: 64)
        t.apply(.createLabel(label: LabelID(long), name: "long", color: LabelPalette.color(forName: "x")))
        let next = LabelPalette.newLabelID(forName: long, on: t.board)
        #expect(next.rawValue == String(repeating: "y", count: 62) + "-2")
        #expect(next.isValid)
    }

    @Test func aLabelMadeByNameIsAcceptedByTheReducer() {
        var t = TestBoard.standard()
        let name = "Needs Review!"
        t.apply(.createLabel(
            label: LabelPalette.newLabelID(forName: name, on: t.board), name: name,
            color: LabelPalette.color(forName: name)))
        #expect(t.board.label(named: "needs review!")?.id == "needs-review-")
    }
    /// The web page gives a new label the colour cork gives the same name: its copies of the known colours and of the
    /// palette (app.js, `LABEL_KNOWN` and `LABEL_PALETTE`) are these, in this order (the pick is by index).
    @Test func theWebPagesColoursAreTheseInTheSameOrder() throws {
        let app = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/BoardWeb/Resources/app.js")
        let text = try String(contentsOf: app, encoding: .utf8)
        func block(_ start: String, _ end: String) throws -> Substring {
            let from = try #require(text.range(of: start))
            let to = try #require(text.range(of: end, range: from.upperBound..<text.endIndex))
            return text[from.upperBound..<to.lowerBound]
        }
        let colour = /'(#[0-9a-f]{6})'/
        let palette = try block("const LABEL_PALETTE = [", "];").matches(of: colour).map { String($0.output.1) }
        #expect(palette == LabelPalette.palette.map(\.description))
        let pair = /(?:'([^']+)'|([a-z]+)): '(#[0-9a-f]{6})'/
        let known = try block("const LABEL_KNOWN = {", "};").matches(of: pair).map {
            (String($0.output.1 ?? $0.output.2 ?? ""), String($0.output.3))
        }
        #expect(Dictionary(known, uniquingKeysWith: { a, _ in a }) == LabelPalette.knownColors.mapValues(\.description))
        #expect(known.count == LabelPalette.knownColors.count)
    }

    /// The web page's copies of the server's field limits (app.js stops a text there, or keeps it with a notice,
    /// instead of sending it to be refused) are the reducer's.
    @Test func theWebPagesLimitsAreTheReducers() throws {
        let app = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/BoardWeb/Resources/app.js")
        let text = try String(contentsOf: app, encoding: .utf8)
        func constant(_ name: String) -> Int? {
            let pattern = try! Regex("const \(name) = ([0-9]+);")
            return text.firstMatch(of: pattern).flatMap { ($0.output[1].substring).flatMap { Int($0) } }
        }
        let expected = [
            "TITLE_MAX": Limits.titleMaxCharacters, "LABEL_NAME_MAX": Limits.labelNameMaxCharacters,
            "ITEM_MAX": Limits.checklistTextMaxCharacters, "DESC_MAX_BYTES": Limits.descriptionMaxBytes,
            "COMMENT_MAX_BYTES": Limits.commentMaxBytes, "CHAT_MAX_BYTES": Limits.chatMaxBytes,
        ]
        for (name, limit) in expected { #expect(constant(name) == limit, "\(name)") }
    }
}
