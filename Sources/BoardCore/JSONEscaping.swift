/// JSON's string escaping, the one implementation in the project: the board hash, `JSONValue`'s canonical text and
/// the wire's byte writer all escape through it, so they cannot drift apart.
///
/// On UTF-8 bytes: `"` and `\` are escaped with a backslash, the control characters below U+0020 as `\n`, `\r`,
/// `\t` or `\u00XX` (lower-case hex; `\b` and `\f` are written as `\u0008` and `\u000c`, which the board hash
/// pins); everything else, U+007F and U+2028 included, is written raw, so a line never holds a raw newline.
public enum JSONEscaping {
    /// Calls `emit` with the inside of the JSON string literal for `utf8` (no quotes), in pieces: runs that need
    /// no escape are passed whole, straight from `utf8`.
    @inlinable
    public static func escape(_ utf8: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var run = 0
        var sequence: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x5C, 0, 0x30, 0x30, 0, 0)
        for i in 0..<utf8.count {
            let b = utf8[i]
            guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
            if i > run { emit(UnsafeBufferPointer(rebasing: utf8[run..<i])) }
            run = i &+ 1
            let count: Int
            switch b {
            case 0x22, 0x5C: sequence.1 = b; count = 2
            case 0x0A: sequence.1 = UInt8(ascii: "n"); count = 2
            case 0x0D: sequence.1 = UInt8(ascii: "r"); count = 2
            case 0x09: sequence.1 = UInt8(ascii: "t"); count = 2
            default:
                sequence.1 = UInt8(ascii: "u")
                sequence.4 = hexDigit(b >> 4)
                sequence.5 = hexDigit(b & 0xF)
                count = 6
            }
            withUnsafeBytes(of: &sequence) { raw in
                emit(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
            }
        }
        if run < utf8.count { emit(UnsafeBufferPointer(rebasing: utf8[run...])) }
    }

    /// Whether `s` needs no escape at all (no `"`, `\` or control character): then its text is its literal's inside.
    @inlinable
    public static func isPlain(_ s: String) -> Bool {
        s.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
    }

    /// `s` with its control characters (C0, DEL and C1) written as `\u001b`, the rest as it is: for a message that
    /// quotes what someone typed, so that a terminal that prints it shows the escape instead of obeying it.
    public static func controlsEscaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for scalar in s.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Appends `s` as a JSON string literal, quotes included.
    public static func append(_ s: String, to out: inout String) {
        out += "\""
        if isPlain(s) {
            out += s
        } else {
            var s = s
            s.withUTF8 { utf8 in escape(utf8) { out += String(decoding: $0, as: UTF8.self) } }
        }
        out += "\""
    }

    /// `s` as a JSON string literal, quotes included: how a message quotes a name it was sent (an unknown `type`
    /// or op `kind`), so a quote, backslash or control character in it reads as an escape, never as itself.
    public static func literal(_ s: String) -> String {
        var out = ""
        append(s, to: &out)
        return out
    }

    /// A lower-case hex digit.
    @inlinable @inline(__always)
    public static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "a") &- 10)
    }
}
