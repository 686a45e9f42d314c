#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only reader over the bytes of one JSON line; it skips values without building them.
struct JSONCursor {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Skips JSON whitespace.
    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes a string and returns the range of its raw contents (escapes left as they are).
    mutating func string() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        guard let base = bytes.baseAddress else { return nil }
        // The closing quote is the first `"` not escaped: memchr to each candidate, then count the backslashes
        // before it (an odd number escapes it).
        while index < bytes.count, let hit = memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index) {
            let quote = UnsafeRawPointer(hit) - base
            var backslashes = 0
            while quote - backslashes - 1 >= start, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            index = quote + 1
            if backslashes % 2 == 0 { return start..<quote }
        }
        index = bytes.count
        return nil
    }

    /// Consumes a non-negative integer (the protocol has no other numbers).
    mutating func integer() -> UInt64? {
        var value: UInt64 = 0
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value &* 10 &+ UInt64(bytes[index] - 0x30)
            index += 1
        }
        return index > start ? value : nil
    }

    /// Consumes one value of any kind; false on malformed input.
    mutating func skipValue() -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default:
                    break
                }
                index += 1
            }
            return false
        default:
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): return true
                default: index += 1
                }
            }
            return true
        }
    }

    /// Whether the bytes in `range` are exactly `text`.
    func matches(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let start = text.utf8Start
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != start[offset] { return false }
        return true
    }
}
