// Fuzz target: the line editor (CorkApp/TUI/LineEditor) driven by a script of edits read from the input: each byte
// picks an edit; inserts take the next few bytes as UTF-8 text (lossily decoded, so any scalars and graphemes).
// After every edit the cursor is inside the text, on a character boundary, and the text has no control character.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    var editor = LineEditor()
    var at = 0
    while at < input.count {
        let command = input[at]
        at += 1
        switch command % 10 {
        case 0, 1, 2:
            let length = min(Int(command >> 4) + 1, input.count - at)
            editor.insert(String(decoding: input[at..<at + length], as: UTF8.self))
            at += length
        case 3: editor.backspace()
        case 4: editor.delete()
        case 5: editor.move(Int(Int8(bitPattern: command)) / 16)
        case 6: editor.home()
        case 7: editor.end()
        case 8: editor.deleteWord()
        default:
            let length = min(Int(command >> 4), input.count - at)
            editor.set(String(decoding: input[at..<at + length], as: UTF8.self))
            at += length
        }
        let count = editor.text.count
        require(editor.cursor >= 0 && editor.cursor <= count, "cursor \(editor.cursor) outside 0…\(count)")
        require(editor.text.hasPrefix(editor.beforeCursor), "beforeCursor is not a prefix of the text")
        require(
            !editor.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
            "a control character in \(editor.text.debugDescription)")
    }
    return 0
}
