import CorkApp
import Foundation
import Testing

/// Every input-line command is documented with its arguments, in the `?` help and in docs/terminal-client.md.
extension TUIModelTests {
    /// Each command as the help and the docs write it: the command, then its arguments.
    static let documentedCommands = [
        "/add TITLE [--column COLUMN] [--label LABEL]… [--due YYYY-MM-DD] [--assign USER]… [--desc TEXT] [--ref REF] [--milestone M]",
        "/move CARD COLUMN",
        "/edit [CARD] TITLE",
        "/desc [CARD]",
        "/due [CARD] YYYY-MM-DD|none",
        "/label [CARD] +LABEL -LABEL…",
        "/labels [add NAME [COLOR] | color LABEL COLOR | rename LABEL NAME | remove LABEL]",
        "/assign [CARD] USER",
        "/block [CARD] OTHER",
        "/unblock [CARD] OTHER",
        "/force REASON",
        "/recur [CARD] day|weekday|week mon,thu|month N|after N|off",
        "/follow [CARD]",
        "/unfollow [CARD]",
        "/comment [CARD] TEXT",
        "/close [CARD]",
        "/reopen [CARD]",
        "/archive [CARD | SEARCH]",
        "/restore [CARD]",
        "/undo [skip]",
        "/redo [skip]",
        "/filter [QUERY]",
        "/who",
        "/away [MESSAGE]",
        "/board [ID | create ID [NAME] | remind HOURS|default]",
        "/column add NAME | rename COLUMN NAME | move COLUMN N|left|right | remove COLUMN | wip COLUMN N [hard|soft]|none | progress COLUMN on|off",
        "/milestones",
        "/members",
        "/inbox",
        "/lastlog [WORDS]",
        "/keep",
        "/theirs",
        "/merge",
        "/set joins on|fold|off",
        "/set notify on|bell|off",
        "/help",
        "/quit",
    ]

    /// The documentation's page on the full-screen board (docs/terminal-client.md).
    static func readmeTUISection() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("docs/terminal-client.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## The full-screen board"))
        let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        return String(readme[start.lowerBound..<end])
    }

    @Test func everyInputLineCommandIsDocumentedWithItsArgumentsInTheHelpAndREADME() throws {
        let help = TUIModel.helpLines.joined(separator: "\n")
        let readme = try Self.readmeTUISection()
        for usage in Self.documentedCommands {
            #expect(help.contains(usage), "the ? help lacks \(usage)")
            #expect(readme.contains("`\(usage)`"), "docs/terminal-client.md lacks `\(usage)`")
        }
        // Every command the input line takes is documented, and every documented one is taken.
        let names = Set(Self.documentedCommands.map { String($0.prefix { $0 != " " }) })
        #expect(names == Set(TUIModel.commands))
        for name in names {
            var model = Self.model()
            _ = Self.enter(name, into: &model)
            #expect(model.notice?.contains("unknown command") != true, "\(name)")
        }
    }
}
