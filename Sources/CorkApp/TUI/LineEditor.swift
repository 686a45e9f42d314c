/// A one-line text editor: the input line's text and cursor, edited by keys. Pure.
public struct LineEditor: Hashable, Sendable {
    /// The text.
    public private(set) var text: String = ""
    /// The cursor, as a count of characters from the start.
    public private(set) var cursor = 0

    /// An empty line.
    public init() {}

    /// A line holding `text` with the cursor at its end.
    public init(_ text: String) {
        self.text = text
        cursor = text.count
    }

    /// Inserts text at the cursor.
    public mutating func insert(_ string: String) {
        let clean = string.filter { !$0.isNewline && $0 != "\t" && !($0.asciiValue.map { $0 < 0x20 } ?? false) }
        let index = text.index(text.startIndex, offsetBy: cursor)
        text.insert(contentsOf: clean, at: index)
        cursor += clean.count
    }

    /// Deletes the character before the cursor.
    public mutating func backspace() {
        guard cursor > 0 else { return }
        let index = text.index(text.startIndex, offsetBy: cursor - 1)
        text.remove(at: index)
        cursor -= 1
    }

    /// Deletes the character under the cursor.
    public mutating func delete() {
        guard cursor < text.count else { return }
        text.remove(at: text.index(text.startIndex, offsetBy: cursor))
    }

    /// Moves the cursor by `offset` characters.
    public mutating func move(_ offset: Int) { cursor = max(0, min(text.count, cursor + offset)) }

    /// Moves the cursor to the start.
    public mutating func home() { cursor = 0 }

    /// Moves the cursor to the end.
    public mutating func end() { cursor = text.count }

    /// Deletes the word before the cursor (Ctrl-W).
    public mutating func deleteWord() {
        while cursor > 0, text[text.index(text.startIndex, offsetBy: cursor - 1)] == " " { backspace() }
        while cursor > 0, text[text.index(text.startIndex, offsetBy: cursor - 1)] != " " { backspace() }
    }

    /// Replaces the whole line.
    public mutating func set(_ string: String) {
        text = ""
        cursor = 0
        insert(string)
    }
}
