/// A one-line text editor: the input line's text and cursor, edited by keys. Pure.
///
/// It works on grapheme clusters (Swift `Character`s) throughout: the cursor always sits between two of them, and
/// Backspace, Delete and the arrows take a whole one (a flag, a ZWJ sequence such as 👩‍💻, a letter with its
/// combining marks). A terminal sends such a cluster one Unicode scalar at a time, and a scalar typed next to
/// another may merge with it into one cluster (🇩 then 🇪 is one flag 🇩🇪): the cursor is kept as a UTF-8 offset and
/// moved to the next cluster boundary after each edit, so a count of characters never points past the text.
public struct LineEditor: Hashable, Sendable {
    /// The text.
    public private(set) var text: String = ""
    /// The cursor as a UTF-8 offset into `text`, always on a grapheme cluster boundary.
    private var offset = 0

    /// An empty line.
    public init() {}

    /// A line holding `text` (cleaned as by `insert`) with the cursor at its end.
    public init(_ text: String) {
        insert(text)
    }

    /// The cursor, as a count of characters (grapheme clusters) from the start.
    public var cursor: Int { text[..<index].count }

    /// The text before the cursor.
    public var beforeCursor: Substring { text[..<index] }

    /// The cursor as an index into `text`.
    private var index: String.Index { text.utf8.index(text.startIndex, offsetBy: offset) }

    /// Inserts text at the cursor. Line breaks and tabs become one space (a pasted run of lines reads as one line,
    /// with a space where each break was; breaks at the very start or end are dropped); other control characters are
    /// dropped.
    public mutating func insert(_ string: String) {
        let clean = LineEditor.clean(string)
        guard !clean.isEmpty else { return }
        text.insert(contentsOf: clean, at: index)
        offset = boundary(atOrAfter: offset + clean.utf8.count)
    }

    /// Deletes the character before the cursor.
    public mutating func backspace() {
        let end = index
        guard end > text.startIndex else { return }
        let start = text.index(before: end)
        text.removeSubrange(start..<end)
        offset = boundary(atOrBefore: text.utf8.distance(from: text.startIndex, to: start))
    }

    /// Deletes the character under the cursor.
    public mutating func delete() {
        let start = index
        guard start < text.endIndex else { return }
        text.removeSubrange(start..<text.index(after: start))
        offset = boundary(atOrBefore: offset)
    }

    /// Moves the cursor by `offset` characters.
    public mutating func move(_ count: Int) {
        var position = index
        if count > 0 {
            for _ in 0..<count where position < text.endIndex { position = text.index(after: position) }
        } else {
            for _ in 0..<(-count) where position > text.startIndex { position = text.index(before: position) }
        }
        offset = text.utf8.distance(from: text.startIndex, to: position)
    }

    /// Moves the cursor to the start.
    public mutating func home() { offset = 0 }

    /// Moves the cursor to the end.
    public mutating func end() { offset = text.utf8.count }

    /// Deletes the word before the cursor (Ctrl-W).
    public mutating func deleteWord() {
        while let last = beforeCursor.last, last == " " { backspace() }
        while let last = beforeCursor.last, last != " " { backspace() }
    }

    /// Replaces the whole line.
    public mutating func set(_ string: String) {
        text = ""
        offset = 0
        insert(string)
    }

    /// The first grapheme cluster boundary at or after the UTF-8 offset `target` (the end when past it).
    private func boundary(atOrAfter target: Int) -> Int {
        var position = text.startIndex
        var at = 0
        while position < text.endIndex, at < target {
            position = text.index(after: position)
            at = text.utf8.distance(from: text.startIndex, to: position)
        }
        return at
    }

    /// The last grapheme cluster boundary at or before the UTF-8 offset `target`.
    private func boundary(atOrBefore target: Int) -> Int {
        var position = text.startIndex
        var last = 0
        while position < text.endIndex {
            position = text.index(after: position)
            let at = text.utf8.distance(from: text.startIndex, to: position)
            if at > target { break }
            last = at
        }
        return last
    }

    /// `string` with each run of line breaks and tabs made one space (none at either end) and other control
    /// characters (C0, DEL, C1) removed.
    static func clean(_ string: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D, 0x09, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
                pendingSpace = !out.isEmpty
            case 0x00..<0x20, 0x7F...0x9F:
                continue
            default:
                if pendingSpace && scalar != " " && out.last != " " { out.append(" ") }
                pendingSpace = false
                out.append(scalar)
            }
        }
        return String(out)
    }
}
