import BoardClient
import BoardCore
import Testing

/// Board updates: one per input that changed what is shown, saying what changed; no board comparison.
@Suite struct BoardPublisherTests {
    let board = Board(id: "main", name: "Main", owner: "alice")

    @Test func theFirstUpdateAndEverySnapshotSayEverything() {
        var publisher = BoardPublisher()
        let first = publisher.publish(board, cause: .local, changes: .parts(cards: ["c1"], columns: []))
        #expect(first?.changes == .everything)
        let snapshot = publisher.publish(board, cause: .snapshot, changes: .nothing)
        #expect(snapshot?.changes == .everything)
        publisher.reset()
        #expect(publisher.publish(board, cause: .deltas, changes: .nothing)?.changes == .everything)
    }

    @Test func anInputThatChangedNothingShownMakesNoUpdate() {
        var publisher = BoardPublisher()
        _ = publisher.publish(board, cause: .snapshot, changes: .everything)
        #expect(publisher.publish(board, cause: .deltas, changes: .nothing) == nil)
        let update = publisher.publish(board, cause: .deltas, changes: .parts(cards: ["c1"], columns: ["todo"]))
        #expect(update?.changes == .parts(cards: ["c1"], columns: ["todo"]))
        #expect(update?.cause == .deltas)
    }

    @Test func theSnapshotAndDiffAreComputedWhenAsked() {
        var publisher = BoardPublisher()
        let update = publisher.publish(board, cause: .snapshot, changes: .everything)
        #expect(update?.snapshot == board.snapshot())
        #expect(update?.diff(from: nil) == SnapshotDiff(from: BoardSnapshot(seq: 0, columns: []), to: board.snapshot()))
    }
}
