extension JSONPreScan {
    /// The scanner's working state: a position and an explicit stack instead of recursion.
    struct Scanner {
        let b: UnsafeBufferPointer<UInt8>
        let limits: Limits
        var i = 0
        var stack: [Frame] = []
        /// When set, every value is recorded as it is vetted: the pre-scan is then the parser (`JSONTape`).
        var tape: JSONTape?
        /// Whether the last string scanned held an escape.
        var lastStringEscaped = false

        struct Frame {
            var isObject: Bool
            var keys: [[UInt8]] = []
            var keySet: Set<[UInt8]>? = nil
        }

        enum Expect { case value, keyOrEnd, key, valueOrEnd, afterValue }

        init(bytes: UnsafeBufferPointer<UInt8>, limits: Limits) {
            self.b = bytes
            self.limits = limits
        }

        mutating func run() -> JSONPreScanError? {
            skipSpace()
            guard i < b.count else { return fail(.badJSON, "a line of only whitespace holds no JSON object") }
            guard b[i] == UInt8(ascii: "{") else { return fail(.badJSON, "a line must hold one JSON object") }
            var expect = Expect.value
            while true {
                skipSpace()
                switch expect {
                case .value, .valueOrEnd:
                    guard i < b.count else { return fail(.badJSON, "line ends inside a value") }
                    if expect == .valueOrEnd && b[i] == UInt8(ascii: "]") {
                        i += 1
                        pop()
                        expect = .afterValue
                        continue
                    }
                    switch b[i] {
                    case UInt8(ascii: "{"):
                        if let e = push(object: true) { return e }
                        expect = .keyOrEnd
                    case UInt8(ascii: "["):
                        if let e = push(object: false) { return e }
                        expect = .valueOrEnd
                    default:
                        let start = i
                        if let e = scalarValue() { return e }
                        tape?.scalar(from: b, start: start, end: i, escaped: lastStringEscaped)
                        expect = .afterValue
                    }
                case .keyOrEnd, .key:
                    guard i < b.count else { return fail(.badJSON, "line ends inside an object") }
                    if expect == .keyOrEnd && b[i] == UInt8(ascii: "}") {
                        i += 1
                        pop()
                        expect = .afterValue
                        continue
                    }
                    guard b[i] == UInt8(ascii: "\"") else { return fail(.badJSON, "expected a key in quotes") }
                    let keyStart = i
                    var key: [UInt8] = []
                    if let e = string(decodeInto: &key) { return e }
                    if let e = addKey(key, at: keyStart) { return e }
                    tape?.key(start: keyStart, end: i, escaped: lastStringEscaped)
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: ":") else { return fail(.badJSON, "expected ':' after a key") }
                    i += 1
                    expect = .value
                case .afterValue:
                    guard let top = stack.last else {
                        return i == b.count ? nil : trailing()
                    }
                    guard i < b.count else { return fail(.badJSON, "line ends before the object is closed") }
                    let c = b[i]
                    if c == UInt8(ascii: ",") {
                        i += 1
                        expect = top.isObject ? .key : .value
                    } else if top.isObject && c == UInt8(ascii: "}") || !top.isObject && c == UInt8(ascii: "]") {
                        i += 1
                        pop()
                        expect = .afterValue
                    } else {
                        return fail(.badJSON, top.isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                    }
                }
            }
        }

        mutating func push(object: Bool) -> JSONPreScanError? {
            if stack.count >= limits.maxDepth {
                return fail(.depthExceeded, "nesting deeper than \(limits.maxDepth)")
            }
            stack.append(Frame(isObject: object))
            tape?.open(isObject: object, at: i)
            i += 1
            return nil
        }

        mutating func pop() {
            stack.removeLast()
            tape?.close(at: i)
        }

        mutating func addKey(_ key: [UInt8], at offset: Int) -> JSONPreScanError? {
            let top = stack.count - 1
            if stack[top].keys.count >= limits.maxKeys && stack[top].keySet == nil
                || (stack[top].keySet?.count ?? 0) >= limits.maxKeys
            {
                return JSONPreScanError(.badRequest, "an object has more than \(limits.maxKeys) keys", at: offset)
            }
            let duplicate: Bool
            if stack[top].keySet != nil {
                duplicate = !stack[top].keySet!.insert(key).inserted
            } else if stack[top].keys.count < 16 {
                duplicate = stack[top].keys.contains(key)
                if !duplicate { stack[top].keys.append(key) }
            } else {
                var set = Set(stack[top].keys)
                duplicate = !set.insert(key).inserted
                stack[top].keys = []
                stack[top].keySet = set
            }
            if duplicate {
                let name = String(decoding: key.prefix(64), as: UTF8.self)
                return JSONPreScanError(.duplicateKey, "duplicate key \"\(name)\"", at: offset)
            }
            return nil
        }

        mutating func scalarValue() -> JSONPreScanError? {
            let c = b[i]
            switch c {
            case UInt8(ascii: "\""):
                var ignored: [UInt8] = []
                return string(decodeInto: &ignored, keep: false)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number()
            case UInt8(ascii: "-"):
                if i + 1 < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i + 1]) {
                    return fail(.badRequest, "negative numbers are not allowed")
                }
                return fail(.badJSON, "expected a value")
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default:
                return c >= 0x80 ? nonASCIIOutsideString() : fail(.badJSON, "expected a value")
            }
        }

        mutating func literal(_ word: StaticString) -> JSONPreScanError? {
            let n = word.utf8CodeUnitCount
            guard i + n <= b.count else { return fail(.badJSON, "expected a value") }
            for k in 0..<n where b[i + k] != word.utf8Start[k] { return fail(.badJSON, "expected a value") }
            i += n
            return nil
        }

        mutating func number() -> JSONPreScanError? {
            let start = i
            if b[i] == UInt8(ascii: "0"), i + 1 < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i + 1]) {
                return fail(.badJSON, "numbers must not have leading zeros")
            }
            var value: UInt64 = 0
            var tooLarge = false
            while i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) {
                if !tooLarge {
                    value = value * 10 + UInt64(b[i] - UInt8(ascii: "0"))
                    if value > limits.maxInteger { tooLarge = true }
                }
                i += 1
            }
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                return JSONPreScanError(.badRequest, "numbers must be integers (no fraction or exponent)", at: start)
            }
            if tooLarge {
                return JSONPreScanError(.badRequest, "integer larger than \(limits.maxInteger)", at: start)
            }
            return nil
        }

        mutating func skipSpace() {
            while i < b.count {
                switch b[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        mutating func trailing() -> JSONPreScanError? {
            b[i] >= 0x80 ? nonASCIIOutsideString() : fail(.badJSON, "one JSON object per line; found more after it")
        }

        /// Non-ASCII bytes outside a string: not UTF-8 at all (`invalid_utf8`) or just not JSON (`bad_json`).
        mutating func nonASCIIOutsideString() -> JSONPreScanError? {
            let start = i
            if utf8Sequence() == nil { return JSONPreScanError(.invalidUTF8, "bytes that are not UTF-8", at: start) }
            return JSONPreScanError(.badJSON, "unexpected character outside a string", at: start)
        }

        func fail(_ kind: JSONPreScanError.Kind, _ message: String) -> JSONPreScanError {
            JSONPreScanError(kind, message, at: i)
        }
    }
}
