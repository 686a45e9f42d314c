/// Field checks shared by the reducer's handlers. Each returns the rejection, or nil when the value is fine.
enum Validate {
    /// A one-line name or title: trimmed non-empty, no control characters, at most `max` characters.
    static func line(_ text: String, _ field: String, max: Int) -> Rejection? {
        if text.unicodeScalars.contains(where: isControl) {
            return Rejection(.invalid, "\(field) must be one line without control characters")
        }
        if text.allSatisfy(\.isWhitespace) { return Rejection(.invalid, "\(field) must not be empty") }
        if text.count > max { return Rejection(.tooLarge, "\(field) is longer than \(max) characters") }
        return nil
    }

    /// A multi-line text: tabs and newlines allowed, no other control characters, at most `maxBytes` UTF-8 bytes.
    static func text(_ text: String, _ field: String, maxBytes: Int, allowEmpty: Bool) -> Rejection? {
        if text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" && $0 != "\r" }) {
            return Rejection(.invalid, "\(field) contains control characters")
        }
        if !allowEmpty, text.allSatisfy(\.isWhitespace) { return Rejection(.invalid, "\(field) must not be empty") }
        if text.utf8.count > maxBytes { return Rejection(.tooLarge, "\(field) is longer than \(maxBytes) bytes") }
        return nil
    }

    /// An identifier chosen by a client.
    static func id<T>(_ id: Identifier<T>, _ field: String) -> Rejection? {
        id.isValid ? nil : malformedID(field)
    }

    /// The rejection for a malformed identifier in `field`.
    static func malformedID(_ field: String) -> Rejection {
        Rejection(.invalid, "\(field) must be 1–\(Limits.idMaxLength) characters of A–Z a–z 0–9 _ . -")
    }

    /// A board's display name (`board.rename`, and `board.create` on the wire).
    static func boardName(_ name: String) -> Rejection? {
        line(name, "board name", max: Limits.boardNameMaxCharacters)
    }

    /// An external reference: one line, at most `Limits.refMaxCharacters`.
    static func ref(_ ref: String) -> Rejection? {
        // The one-line rules first, so a newline is called a control character, not a space.
        if let rejection = line(ref, "ref", max: Limits.refMaxCharacters) { return rejection }
        if ref.contains(where: \.isWhitespace) { return Rejection(.invalid, "ref must not contain spaces") }
        return nil
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

extension Board {
    /// Why `name` cannot be a board's display name — empty, only spaces, control characters, or longer than
    /// `board_name_max` characters — or nil when it can. `board.rename` rejects such a name; `board.create` refuses it
    /// with `bad_request`.
    public static func nameProblem(_ name: String) -> String? { Validate.boardName(name)?.message }
}
