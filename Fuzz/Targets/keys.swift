// Fuzz target: the terminal key decoder (TerminalUI/KeyDecoder) and the line editor (CorkApp/TUI/LineEditor) it
// drives. Any split of the same bytes must give the same events (KeyDecoder's promise); the editor, fed those events,
// keeps its cursor inside the text and never holds a control character.
import TerminalUI

func decode(_ chunks: [ArraySlice<UInt8>]) -> [KeyEvent] {
    var decoder = KeyDecoder()
    var events: [KeyEvent] = []
    for chunk in chunks { events += decoder.decode(chunk) }
    events += decoder.flush()
    return events
}

func edit(_ events: [KeyEvent]) {
    var editor = LineEditor()
    for event in events {
        switch (event.key, event.modifiers) {
        case (.character("w"), .ctrl): editor.deleteWord()
        case (.character("a"), .ctrl), (.home, _): editor.home()
        case (.character("e"), .ctrl), (.end, _): editor.end()
        case (.character("u"), .ctrl): editor.set("")
        case (.character(let c), _): editor.insert(String(c))
        case (.paste(let text), _): editor.insert(text)
        case (.backspace, _): editor.backspace()
        case (.delete, _): editor.delete()
        case (.left, _): editor.move(-1)
        case (.right, _): editor.move(1)
        case (.up, _): editor.move(-3)
        case (.down, _): editor.move(3)
        default: continue
        }
        require(editor.cursor >= 0 && editor.cursor <= editor.text.count, "cursor \(editor.cursor) outside \(editor.text.count)")
        require(editor.beforeCursor.count == editor.cursor, "beforeCursor disagrees with cursor")
        require(
            !editor.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
            "a control character in \(editor.text.debugDescription)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let input = bytes(data, size)
    let stream = input[1...]
    let whole = decode([stream])
    if stream.count <= 64 {
        for split in stream.indices {
            let two = decode([stream[..<split], stream[split...]])
            require(two == whole, "split at \(split - 1): \(two) != \(whole)")
        }
    }
    var chunks: [ArraySlice<UInt8>] = []
    var at = stream.startIndex
    for length in chunkLengths(count: stream.count, seed: UInt64(input[0]) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(size)) {
        chunks.append(stream[at..<at + length])
        at += length
    }
    let random = decode(chunks)
    require(random == whole, "chunks \(chunks.map(\.count)): \(random) != \(whole)")
    edit(whole)
    return 0
}
