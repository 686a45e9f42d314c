extension KeyDecoder {
    /// What parsing at one position found.
    enum Parsed: Equatable {
        /// More bytes are needed to decide.
        case incomplete
        /// `length` bytes made one event, or were swallowed (`nil`).
        case event(KeyEvent?, length: Int)
        /// `length` bytes were the bracketed-paste start marker `ESC[200~`.
        case pasteStart(length: Int)
        /// `length` bytes began a sequence longer than ``maximumSequenceLength`` whose final byte has not arrived:
        /// they are swallowed, and so is the rest of the sequence as it arrives (`skipping`), so that a long
        /// sequence is swallowed whole however its bytes are split.
        case overlong(length: Int, skipping: Skip)
    }

    /// Where in an overlong sequence the bytes being swallowed are: its parameter bytes (CSI or SS3) or a CSI's
    /// intermediate bytes. The same grammar as ``parseCSI(_:at:)`` and ``parseSS3(_:at:)``.
    enum Skip: Equatable, Sendable {
        case csiParameters, csiIntermediates, ss3Parameters

        /// What `byte` does to the skip: whether it is swallowed, and the phase after it (nil: the skip is over).
        func step(_ byte: UInt8) -> (next: Skip?, swallowed: Bool) {
            switch (self, byte) {
            case (.csiParameters, 0x30...0x3F), (.ss3Parameters, 0x30...0x3F): (self, true)
            case (.csiParameters, 0x20...0x2F), (.csiIntermediates, 0x20...0x2F): (.csiIntermediates, true)
            case (_, 0x40...0x7E): (nil, true)  // the final byte
            default: (nil, false)  // malformed: the byte is read as itself
            }
        }
    }

    /// Parses the event that starts at `bytes[index]`. With `final`, nothing more will arrive, so an unfinished
    /// sequence is resolved (lone ESC, Alt-`[`, Alt-`O`) or dropped instead of reported as incomplete.
    static func parse(_ bytes: [UInt8], at index: Int, final: Bool) -> Parsed {
        let byte = bytes[index]
        if byte == 0x1B { return parseEscape(bytes, at: index, final: final) }
        if byte >= 0x80 {
            switch decodeUTF8(bytes, at: index) {
            case nil: return final ? .event(nil, length: bytes.count - index) : .incomplete
            case .some((nil, let length)): return .event(nil, length: length)
            case .some((let scalar?, let length)):
                return .event(scalar.value < 0xA0 ? nil : .character(Character(scalar)), length: length)
            }
        }
        return .event(controlOrASCII(byte), length: 1)
    }

    /// The key for a single byte below 0x80 other than ESC. Enter is CR in raw mode (no `ICRNL`); a lone LF is
    /// Ctrl-J, a control key like any other, not Enter.
    static func controlOrASCII(_ byte: UInt8) -> KeyEvent {
        switch byte {
        case 0x0D: KeyEvent(.enter)
        case 0x09: KeyEvent(.tab)
        case 0x7F, 0x08: KeyEvent(.backspace)
        case 0x00: .ctrl(" ")
        case 0x01...0x1A: .ctrl(Character(Unicode.Scalar(byte + 0x60)))
        case 0x1C...0x1F: .ctrl(Character(Unicode.Scalar(byte + 0x40)))
        default: .character(Character(Unicode.Scalar(byte)))
        }
    }

    /// Parses what follows an ESC at `bytes[index]`: CSI, SS3, Alt-key, or a lone Escape.
    static func parseEscape(_ bytes: [UInt8], at index: Int, final: Bool) -> Parsed {
        guard index + 1 < bytes.count else { return final ? .event(KeyEvent(.escape), length: 1) : .incomplete }
        let next = bytes[index + 1]
        switch next {
        case 0x5B, 0x4F:  // '[' CSI, 'O' SS3
            let parsed = next == 0x5B ? parseCSI(bytes, at: index) : parseSS3(bytes, at: index)
            if parsed == .incomplete && final {
                return index + 2 == bytes.count
                    ? .event(.alt(Character(Unicode.Scalar(next))), length: 2)
                    : .event(nil, length: bytes.count - index)
            }
            return parsed
        case 0x1B:
            return .event(KeyEvent(.escape), length: 1)
        case 0x80...:
            switch decodeUTF8(bytes, at: index + 1) {
            case nil: return final ? .event(nil, length: bytes.count - index) : .incomplete
            case .some((nil, let length)): return .event(nil, length: 1 + length)
            case .some((let scalar?, let length)):
                return .event(scalar.value < 0xA0 ? nil : .alt(Character(scalar)), length: 1 + length)
            }
        default:
            var event = controlOrASCII(next)
            event.modifiers.insert(.alt)
            return .event(event, length: 2)
        }
    }

    /// Parses `ESC [ params intermediates final` at `bytes[index]` (and the Linux console's `ESC [ [ A`–`E`).
    static func parseCSI(_ bytes: [UInt8], at index: Int) -> Parsed {
        var end = index + 2
        if end < bytes.count && bytes[end] == 0x5B {  // Linux console F1–F5: ESC [ [ A … E
            guard end + 1 < bytes.count else { return .incomplete }
            let key = bytes[end + 1]
            return .event((0x41...0x45).contains(key) ? KeyEvent(.function(Int(key) - 0x40)) : nil, length: 4)
        }
        while end < bytes.count, (0x30...0x3F).contains(bytes[end]) { end += 1 }
        let parameterEnd = end
        while end < bytes.count, (0x20...0x2F).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else {
            guard end - index >= maximumSequenceLength else { return .incomplete }
            return .overlong(length: end - index, skipping: end > parameterEnd ? .csiIntermediates : .csiParameters)
        }
        let finalByte = bytes[end]
        if end - index >= maximumSequenceLength { return swallowOverlong(finalByte, end: end, index: index) }
        let length = end + 1 - index
        guard (0x40...0x7E).contains(finalByte) else { return .event(nil, length: end - index) }  // malformed
        guard parameterEnd == end else { return .event(nil, length: length) }  // intermediates: nothing we know
        let parameters = bytes[(index + 2)..<parameterEnd]
        if finalByte == 0x7E && parameters.elementsEqual("200".utf8) { return .pasteStart(length: length) }
        return .event(csiKey(parameters: parameters, final: finalByte), length: length)
    }

    /// A sequence longer than ``maximumSequenceLength`` whose end is in `bytes`: swallowed with its final byte (a
    /// malformed end is read as itself), as the bytes would be had they arrived split (``Skip``).
    static func swallowOverlong(_ finalByte: UInt8, end: Int, index: Int) -> Parsed {
        .event(nil, length: (0x40...0x7E).contains(finalByte) ? end + 1 - index : end - index)
    }

    /// Parses `ESC O [params] final` at `bytes[index]`: SS3 arrows, Home/End, F1–F4 and keypad Enter.
    static func parseSS3(_ bytes: [UInt8], at index: Int) -> Parsed {
        var end = index + 2
        while end < bytes.count, (0x30...0x3F).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else {
            guard end - index >= maximumSequenceLength else { return .incomplete }
            return .overlong(length: end - index, skipping: .ss3Parameters)
        }
        let finalByte = bytes[end]
        if end - index >= maximumSequenceLength { return swallowOverlong(finalByte, end: end, index: index) }
        guard (0x40...0x7E).contains(finalByte) else { return .event(nil, length: end - index) }
        let numbers = numbers(bytes[(index + 2)..<end])
        let modifiers = KeyModifiers(xtermParameter: numbers.last.flatMap { $0 } ?? 1)
        let key: Key? =
            switch finalByte {
            case 0x4D: .enter
            default: letterKey(finalByte)
            }
        return .event(key.map { KeyEvent($0, modifiers) }, length: end + 1 - index)
    }

    /// The key a CSI sequence with these parameter bytes and final byte means, or `nil` when unknown.
    static func csiKey(parameters: ArraySlice<UInt8>, final: UInt8) -> KeyEvent? {
        let numbers = numbers(parameters)
        guard numbers.allSatisfy({ $0 != nil }) else { return nil }
        let modifiers = KeyModifiers(xtermParameter: numbers.count >= 2 ? numbers[1] ?? 1 : 1)
        if final == 0x5A { return KeyEvent(.tab, modifiers.union(.shift)) }  // 'Z': back-tab
        if final == 0x7E {
            let key: Key? =
                switch numbers.first.flatMap({ $0 }) {
                case 1, 7: .home
                case 2: .insert
                case 3: .delete
                case 4, 8: .end
                case 5: .pageUp
                case 6: .pageDown
                case let n? where (11...15).contains(n): .function(n - 10)
                case let n? where (17...21).contains(n): .function(n - 11)
                case let n? where (23...24).contains(n): .function(n - 12)
                default: nil
                }
            return key.map { KeyEvent($0, modifiers) }
        }
        // Cursor keys and F1–F4 carry no parameter or `1;modifier`; anything else (like a cursor position report,
        // `ESC[12;40R`) is not a key.
        guard numbers.isEmpty || numbers[0] == 1 else { return nil }
        return letterKey(final).map { KeyEvent($0, modifiers) }
    }

    /// The key for the final letter of an xterm cursor-key or F1–F4 sequence (`A`–`D`, `H`, `F`, `P`–`S`).
    static func letterKey(_ final: UInt8) -> Key? {
        switch final {
        case 0x41: .up
        case 0x42: .down
        case 0x43: .right
        case 0x44: .left
        case 0x48: .home
        case 0x46: .end
        case 0x50...0x53: .function(Int(final) - 0x4F)
        default: nil
        }
    }

    /// The `;`-separated decimal parameters (`nil` for an empty or non-numeric one); none for no bytes.
    static func numbers(_ parameters: ArraySlice<UInt8>) -> [Int?] {
        guard !parameters.isEmpty else { return [] }
        return parameters.split(separator: 0x3B, omittingEmptySubsequences: false).map { part in
            guard !part.isEmpty, part.count <= 6, part.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return part.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
    }

    /// Decodes one UTF-8 scalar at `bytes[index]`: `nil` when more bytes are needed, `(nil, n)` when the first `n`
    /// bytes are invalid (to be swallowed), `(scalar, n)` when valid.
    static func decodeUTF8(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar?, Int)? {
        let lead = bytes[index]
        let (length, initial, secondRange): (Int, UInt32, ClosedRange<UInt8>) =
            switch lead {
            case 0xC2...0xDF: (2, UInt32(lead & 0x1F), 0x80...0xBF)
            case 0xE0: (3, UInt32(lead & 0x0F), 0xA0...0xBF)
            case 0xED: (3, UInt32(lead & 0x0F), 0x80...0x9F)
            case 0xE1...0xEF: (3, UInt32(lead & 0x0F), 0x80...0xBF)
            case 0xF0: (4, UInt32(lead & 0x07), 0x90...0xBF)
            case 0xF4: (4, UInt32(lead & 0x07), 0x80...0x8F)
            case 0xF1...0xF3: (4, UInt32(lead & 0x07), 0x80...0xBF)
            default: (0, 0, 0x80...0xBF)
            }
        guard length > 0 else { return (nil, 1) }
        var value = initial
        for offset in 1..<length {
            guard index + offset < bytes.count else { return nil }
            let byte = bytes[index + offset]
            let valid = offset == 1 ? secondRange.contains(byte) : (0x80...0xBF).contains(byte)
            guard valid else { return (nil, offset) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, length) } ?? (nil, length)
    }
}
