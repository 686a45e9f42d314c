extension JSONPreScan.Scanner {
    /// Scans a string starting at its opening quote. When `keep` is set, the decoded UTF-8 goes into `out`.
    mutating func string(decodeInto out: inout [UInt8], keep: Bool = true) -> JSONPreScanError? {
        let start = i
        i += 1
        var length = 0
        lastStringEscaped = false
        while true {
            guard i < b.count else { return JSONPreScanError(.badJSON, "unterminated string", at: start) }
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return length > limits.maxStringBytes
                    ? JSONPreScanError(.badRequest, "string longer than \(limits.maxStringBytes) bytes", at: start) : nil
            }
            if length > limits.maxStringBytes {
                return JSONPreScanError(.badRequest, "string longer than \(limits.maxStringBytes) bytes", at: start)
            }
            if c == UInt8(ascii: "\\") {
                lastStringEscaped = true
                if let e = escape(into: &out, keep: keep, length: &length) { return e }
            } else if c < 0x20 {
                return fail(.badJSON, "raw control character in a string (escape it)")
            } else if c < 0x80 {
                if keep { out.append(c) }
                length += 1
                i += 1
            } else {
                let seqStart = i
                guard let n = utf8Sequence() else { return JSONPreScanError(.invalidUTF8, "bytes that are not UTF-8", at: seqStart) }
                if keep { out.append(contentsOf: b[seqStart..<seqStart + n]) }
                length += n
            }
        }
    }

    /// Scans one escape after a backslash, decoding it; rejects lone or misordered surrogates.
    mutating func escape(into out: inout [UInt8], keep: Bool, length: inout Int) -> JSONPreScanError? {
        let start = i
        guard i + 1 < b.count else { return fail(.badJSON, "unterminated escape") }
        let e = b[i + 1]
        let simple: UInt8?
        switch e {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: return fail(.badJSON, "unknown escape")
        }
        if let simple {
            if keep { out.append(simple) }
            length += 1
            i += 2
            return nil
        }
        guard let unit = hex4(at: i + 2) else { return fail(.badJSON, "\\u needs four hex digits") }
        i += 6
        var scalarValue = UInt32(unit)
        if (0xDC00...0xDFFF).contains(unit) {
            return JSONPreScanError(.invalidUTF8, "lone low surrogate escape", at: start)
        }
        if (0xD800...0xDBFF).contains(unit) {
            guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u"),
                let low = hex4(at: i + 2), (0xDC00...0xDFFF).contains(low)
            else { return JSONPreScanError(.invalidUTF8, "lone high surrogate escape", at: start) }
            i += 6
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            return JSONPreScanError(.invalidUTF8, "escape is not a Unicode scalar", at: start)
        }
        if keep { out.append(contentsOf: Array(String(Character(scalar)).utf8)) }
        length += scalarValue < 0x80 ? 1 : scalarValue < 0x800 ? 2 : scalarValue < 0x10000 ? 3 : 4
        return nil
    }

    func hex4(at p: Int) -> UInt16? {
        guard p + 4 <= b.count else { return nil }
        var v: UInt16 = 0
        for k in p..<p + 4 {
            let c = b[k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: return nil
            }
            v = v << 4 | UInt16(d)
        }
        return v
    }

    /// Checks one well-formed UTF-8 sequence at `i` (first byte ≥ 0x80) and steps over it; nil when malformed
    /// (overlong forms, surrogates, values above U+10FFFF, truncation, stray continuation bytes).
    mutating func utf8Sequence() -> Int? {
        let c0 = b[i]
        let n: Int
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch c0 {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: return nil
        }
        guard i + n <= b.count else { return nil }
        guard (lo...hi).contains(b[i + 1]) else { return nil }
        for k in 2..<max(2, n) where !(0x80...0xBF).contains(b[i + k]) { return nil }
        i += n
        return n
    }
}
