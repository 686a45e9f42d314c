import BoardTesting
import Foundation
import Testing

/// Two people manage the board itself from the full-screen `cork`, against the real corkd, with no raw protocol:
/// Alice adds a column and gives it a WIP limit, creates an overdue milestone and puts #1 in it, and adds a checklist
/// to #1 and ticks an item; Bob sees each change in his pane.
extension TUITmuxTests {
    @Test func twoPeopleManageAColumnAMilestoneAndAChecklist() async throws {
        try await Self.withTwoPanes(cards: ["Fix login", "Write docs"]) { tmux in
            // A column, from the input line: Bob's board grows a REVIEW column, then shows its limit.
            try await tmux.keys("A", "Tab")
            try await tmux.keys("A", "Tab")
            try await tmux.keys("A", "-l", "/column add REVIEW")
            try await tmux.keys("A", "Enter")
            try await tmux.waitFor("REVIEW 0", in: "B")
            try await tmux.keys("A", "-l", "/column wip REVIEW 2 hard")
            try await tmux.keys("A", "Enter")
            try await tmux.waitFor("REVIEW 0/2", in: "B")
            try await tmux.keys("A", "Escape")

            // A milestone, from the M overlay: created with a past due date, #1 (selected) put in it.
            try await tmux.keys("A", "M")
            try await tmux.waitFor("no milestones yet", in: "A")
            try await tmux.keys("A", "n")
            try await tmux.keys("A", "-l", "Beta 2026-01-05")
            try await tmux.keys("A", "Enter")
            try await tmux.waitFor("Beta  ▱▱▱▱▱▱▱▱▱▱ 0/0", in: "A")
            try await tmux.keys("A", "Enter")
            try await tmux.keys("B", "M")
            let milestones = try await tmux.waitFor("0/1", in: "B")
            #expect(milestones.contains("Beta  ▱▱▱▱▱▱▱▱▱▱ 0/1  due !2026-01-05 overdue"), "\(milestones)")
            try await tmux.keys("B", "Escape")

            // A checklist, from the card detail: two items, the first ticked; Bob's column shows the progress.
            try await tmux.keys("A", "Enter")
            try await tmux.waitFor("checklist (empty)", in: "A")
            for item in ["write tests", "ship"] {
                try await tmux.keys("A", "a")
                try await tmux.keys("A", "-l", item)
                try await tmux.keys("A", "Enter")
                try await tmux.waitFor("[ ] \(item)", in: "A")
            }
            try await tmux.keys("A", "k")
            try await tmux.keys("A", "Space")
            try await tmux.waitFor("[x] write tests", in: "A")
            try await tmux.keys("A", "Escape")
            let board = try await tmux.waitFor("▰▱ 1/2", in: "B")
            #expect(board.contains("#1 Fix login"), "\(board)")

            try await tmux.keys("A", "q")
            try await tmux.keys("B", "q")
        }
    }
}
