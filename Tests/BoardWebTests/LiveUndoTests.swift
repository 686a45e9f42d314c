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
