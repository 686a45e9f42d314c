import BoardClient
import BoardCore
import CorkApp
import TerminalUI
import Testing

/// The milestones overlay (`M`): progress and due dates, creating and closing, assigning cards, filtering.
extension TUIModelTests {
    @Test func milestonesListProgressAndDueDatesWithOverdueMarkedWithoutColour() throws {
        var t = Self.testBoard()
        t.apply(.createMilestone(milestone: "v1", title: "v1.0", description: nil, due: Day(year: 2026, month: 3, day: 1)))
        t.apply(.createMilestone(milestone: "v2", title: "v2.0", description: nil, due: Day(year: 2026, month: 6, day: 30)))
        t.apply(.editCard(EditCard(card: "k1", milestone: .set("v1"))))
        t.apply(.editCard(EditCard(card: "k2", milestone: .set("v1"))))
        t.apply(.closeCard(card: "k2"))
        var model = Self.model()
        model.board = t.board
        #expect(model.update(Self.key(.character("M"))).isEmpty)
        #expect(model.overlay == .milestones)
        let lines = model.render().lines
        let v1 = try #require(lines.firstIndex { $0.contains("v1.0") })
        // Half done: one of two cards closed; overdue (2026-03-01 before 2026-03-10) is marked with `!` and words.
        #expect(lines[v1].contains("▰▰▰▰▰▱▱▱▱▱ 1/2"), "\(lines[v1])")
        #expect(lines[v1].contains("due !2026-03-01 overdue"))
        let v2 = try #require(lines.firstIndex { $0.contains("v2.0") })
        #expect(lines[v2].contains("0/0  due 2026-06-30"))
        #expect(!lines[v2].contains("!"))
        // ... and in red.
        let screen = model.render()
        let x = try #require(lines[v1].range(of: "due !").map { lines[v1].distance(from: lines[v1].startIndex, to: $0.lowerBound) })
        #expect(screen[x, v1].style.foreground == .ansi(.red))
        #expect(screen[x, v2].style.foreground != .ansi(.red))
    }

    @Test func theMarkedCardsGoIntoAMilestoneAndTheBoardFiltersByIt() {
        var t = Self.testBoard()
        var model = Self.model()
        // n creates one, with a due date as the last word.
        _ = model.update(Self.key(.character("M")))
        _ = model.update(Self.key(.character("n")))
        Self.type("Beta launch 2026-04-01", into: &model)
        let created = model.update(Self.key(.enter))
        #expect(created == [.submit(.createMilestone(
            milestone: "beta-launch", title: "Beta launch", description: nil, due: Day(year: 2026, month: 4, day: 1)))])
        Self.applied(created, to: &t, model: &model)
        #expect(model.overlay == .milestones)
        #expect(model.render().lines.contains { $0.contains("Beta launch") && $0.contains("due 2026-04-01") })

        // Mark #1 and #2, then M and Enter puts both in the milestone.
        _ = model.update(Self.key(.escape))
        _ = model.update(Self.key(.character("v")))
        _ = model.update(Self.key(.character(" ")))
        _ = model.update(Self.key(.character("j")))
        _ = model.update(Self.key(.character(" ")))
        _ = model.update(Self.key(.character("M")))
        #expect(model.render().lines.contains { $0.contains("for 2 cards: #1 #2") })
        let assigned = model.update(Self.key(.enter))
        #expect(assigned == [
            .submit(.editCard(EditCard(card: "k1", milestone: .set("beta-launch")))),
            .submit(.editCard(EditCard(card: "k2", milestone: .set("beta-launch")))),
        ])
        #expect(model.overlay == nil && model.marked.isEmpty)
        Self.applied(assigned, to: &t, model: &model)
        #expect(model.render().lines.contains { $0.contains("0/2") } == false)

        // C closes it; f filters the board by it.
        _ = model.update(Self.key(.character("M")))
        #expect(model.render().lines.contains { $0.contains("0/2") })
        #expect(model.update(Self.key(.character("C"))) == [.submit(.closeMilestone(milestone: "beta-launch"))])
        _ = model.update(Self.key(.character("f")))
        #expect(model.filter?.text == "milestone:beta-launch")
        #expect(model.visibleCards(0).map(\.id) == ["k1", "k2"])
        #expect(model.visibleCards(1).isEmpty)

        // - takes the selected card out of its milestone.
        _ = model.update(Self.key(.character("M")))
        #expect(model.update(Self.key(.character("-"))) == [.submit(.editCard(EditCard(card: "k2", milestone: .clear)))])
    }
}
