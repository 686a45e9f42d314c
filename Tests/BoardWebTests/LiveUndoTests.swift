@testable import BoardWeb
import CorkApp
import Testing

/// What a page is told when its Ctrl-Z (or Ctrl-Shift-Z) is refused for good: the next press reaches the change
/// before it, so the notice names that one.
@Suite struct LiveUndoTests {
    @Test func aRefusedUndoNamesTheChangeWhyAndWhatTheNextPressUndoes() {
        var stack = UndoStack()
        stack.record(seq: 20, words: #"added #5 "Bob: update dependencies""#)
        stack.record(seq: 60, words: #"renamed #2 "Old" → "New""#)
        guard case .success(let entry) = stack.begin(.undo) else { Issue.record("nothing to undo"); return }
        _ = stack.refused(entry.seq, reason: "column was changed since seq 61")
        _ = stack.skip(.undo)
        let text = LiveSession.undoRefusal(.undo, entry: entry, reason: "column was changed since seq 61", next: stack)
        #expect(text == #"Cannot undo renamed #2 "Old" → "New": column was changed since seq 61. Ctrl-Z again undoes the change before it: added #5 "Bob: update dependencies"."#)
    }

    @Test func aRefusedRedoWithNothingBeforeItSaysSo() {
        let entry = UndoStack.Entry(seq: 7, words: "moved #1 TODO → DOING")
        let text = LiveSession.undoRefusal(.redo, entry: entry, reason: "card #1 was archived", next: UndoStack())
        #expect(text == "Cannot redo moved #1 TODO → DOING: card #1 was archived. There is nothing older to redo.")
    }
}

/// A refusal of a change to a card names the card, once: a bulk move into a full column gave one
/// `DOING is at its WIP limit of 3` per card, none saying which card stayed.
@Suite struct LiveRefusalTests {
    @Test func aRefusalNamesItsCardOnce() {
        #expect(LiveSession.naming(5, in: "DOING is at its WIP limit of 3") == "#5: DOING is at its WIP limit of 3")
        #expect(LiveSession.naming(4, in: "#4 waits for #2 Fix login") == "#4 waits for #2 Fix login")
        #expect(LiveSession.naming(4, in: "#41 waits for #2") == "#4: #41 waits for #2")
        #expect(LiveSession.naming(4, in: "card #4") == "card #4")
    }
}
