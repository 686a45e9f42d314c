import BoardCore
import BoardTesting
import BoardWire
import CorkApp
import Foundation
import Testing

/// Dependencies through the real `cork` and `corkd`: `cork block`, a move into DOING refused with its blocker named,
/// `cork move --force REASON`, `cork column progress`, the query language's `is:blocked` and `blocks:`, and what the
/// history says.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct DependencyCommandTests {
    @Test func aBlockedCardRefusesDoingAndNamesItsBlocker() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Fix login"])
            try await cork.ok(["add", "Ship the release"])
            let blocked = try await cork.json(["block", "#2", "--by", "#1"])
            #expect(blocked["board"] as? String == "main", "\(blocked)")
            let shown = try await cork.ok(["show"])
            #expect(shown.contains("#2 Ship the release BLOCKED by #1"), "\(shown)")
            let detail = try await cork.ok(["show", "#2"])
            #expect(detail.contains("blocked by: #1 Fix login"), "\(detail)")

            // Into DOING: refused (exit 3) with the blocker named; into DONE it may go.
            let refused = try await cork.fails(["move", "#2", "doing"], with: 3)
            #expect(refused.contains("blocked:") && refused.contains("#1 Fix login"), "\(refused)")
            #expect(refused.contains("(cork move #2 doing --force REASON)"), "how to move it anyway: \(refused)")
            #expect(try await cork.ok(["search", "is:blocked"]).contains("#2 Ship the release"))
            #expect(try await cork.ok(["search", "blocks:#2"]).contains("#1 Fix login"))

            // A cycle is refused, a card cannot wait for itself.
            let cycle = try await cork.fails(["block", "#1", "--by", "#2"], with: 3)
            #expect(cycle.contains("cycle:"), "\(cycle)")
            try await cork.fails(["block", "#1", "--by", "#1"], with: 2)

            // An editor may force it with a reason; the history keeps the reason and the blocker.
            try await cork.ok(["move", "#2", "doing", "--force", "the demo is today"])
            // Once the blocker is done, nothing is blocked any more.
            try await cork.ok(["move", "#1", "done"])
            #expect(try await cork.ok(["search", "is:blocked"]) == "no cards match\n")
            try await cork.ok(["unblock", "#2", "--by", "#1"])

            // Another column can be marked in progress.
            try await cork.ok(["add", "Write docs"])
            try await cork.ok(["add", "Review docs"])
            try await cork.ok(["block", "#4", "--by", "#3"])
            try await cork.ok(["column", "progress", "done", "on"])
            let intoDone = try await cork.fails(["move", "#4", "done"], with: 3)
            #expect(intoDone.contains("blocked:"), "\(intoDone)")

            try await BoardPartsCommandTests.expectHistory(of: cork, toSay: [
                "owner marked #2 \"Ship the release\" as blocked by #1 \"Fix login\"",
                "owner moved #2 \"Ship the release\" TODO → DOING although blocked by #1 \"Fix login\": the demo is today",
                "owner marked #2 \"Ship the release\" as no longer blocked by #1 \"Fix login\"",
                "owner marked column DONE as in progress",
            ])

            // Several --by are all or nothing: the second would make a cycle, so the first is not applied either.
            let partly = try await cork.fails(["block", "#3", "--by", "#2", "--by", "#4"], with: 3)
            #expect(partly.contains("cycle:") && partly.contains("nothing was changed"), "\(partly)")
            #expect(!(try await cork.ok(["show", "#3"])).contains("blocked by"), "a refused block left a dependency behind")
            // An archived card blocks nothing: blocking on it is refused rather than accepted and never shown.
            try await cork.ok(["archive", "#2"])
            let archived = try await cork.fails(["block", "#3", "--by", "#2"], with: 3)
            #expect(archived.contains("#2 is archived") && archived.contains("cork restore #2"), "\(archived)")
        }
    }

    /// A recurring card comes back once it is done, once, and after a restart still once.
    @Test func aRecurringCardComesBackOnceItIsDone() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Water the plants", "--due", "2030-03-04"])
            try await cork.ok(["checklist", "#1", "add", "Ficus"])
            try await cork.ok(["checklist", "#1", "done", "1"])
            // It says the rule, in the feed's words (it said only "made recurring #1 …")
            let made = try await cork.ok(["recur", "#1", "--every", "week", "--on", "mon,thu"])
            #expect(made == "made #1 \"Water the plants\" recur every week on mon, thu — TODO\n", "\(made)")
            #expect(try await cork.ok(["show", "#1"]).contains("recurs: every week on mon, thu"))
            try await cork.fails(["recur", "#1", "--every", "week"], with: 2)
            // Days go with a weekly rule only, and each once, in the week's order.
            let dayly = try await cork.fails(["recur", "#1", "--every", "day", "--on", "mon"], with: 2)
            #expect(dayly.contains("--on goes with --every week"), "\(dayly)")
            let funday = try await cork.fails(["recur", "#1", "--every", "week", "--on", "funday"], with: 2)
            #expect(funday.contains(#"--on takes days of the week (mon, tue, wed, thu, fri, sat, sun), not "fun""#), "\(funday)")
            // A negative number is the option's value, refused for its range (it was "Missing value for '--after-done'").
            let negative = try await cork.fails(["recur", "#1", "--after-done", "-3"], with: 2)
            #expect(negative.contains("--after-done must be 1–365"), "\(negative)")
            let sameDays = try await cork.ok(["recur", "#1", "--every", "week", "--on", "thu,Mon,mon"])
            #expect(sameDays.hasSuffix("(no change)\n"), "the same rule as mon,thu: \(sameDays)")
            try await cork.ok(["close", "#1"])
            var shown = ""
            for _ in 0..<100 {
                shown = try await cork.ok(["show"])
                if shown.contains("#2 Water the plants") { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            // Due on Monday 2030-03-04: the next of the schedule after it is Thursday.
            #expect(shown.contains("#2 Water the plants due 2030-03-07"), "\(shown)")
            let next = try await cork.ok(["show", "#2"])
            #expect(next.contains("recurs: every week on mon, thu") && next.contains("[ ] Ficus"), "\(next)")
            let before = corkd.port
            _ = try await corkd.terminate()
            try await corkd.restart()
            try await Task.sleep(for: .seconds(1))
            let again = try CorkProcess(corkd, url: corkd.ownerURL.replacingOccurrences(of: ":\(before)/", with: ":\(corkd.port)/"))
            let after = try await again.ok(["show"])
            #expect(after.components(separatedBy: "Water the plants").count - 1 == 2, "\(after)")
            try await BoardPartsCommandTests.expectHistory(of: again, toSay: [
                "owner made #1 \"Water the plants\" recur every week on mon, thu",
                "corkd added #2 \"Water the plants\" to TODO",
            ])
        }
    }
}
