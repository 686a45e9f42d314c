/// A fractional-index key that orders cards inside a column.
///
/// A rank is a non-empty string of base-62 digits drawn from `0-9A-Za-z` (in ASCII byte order),
/// read as the fraction `0.d₁d₂…dₙ` in base 62. Ranks compare byte-wise, which coincides with the
/// numeric order of those fractions because a valid rank never ends with the digit `0`
/// (so `"V"` and `"V0"` cannot both exist). Between any two distinct ranks there is always
/// another rank, which ``between(_:_:)`` finds while keeping keys short.
public struct Rank: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The key's text: 1 to ``maxLength`` characters from `0-9A-Za-z`, never ending with `0`.
    public let rawValue: String

    /// The longest rank, in characters, that is considered valid.
    public static let maxLength = 64

    /// A column is re-keyed when a generated rank would be longer than this many characters.
    ///
    /// This is only advisory: ``between(_:_:)`` keeps producing ranks up to ``maxLength``; the
    /// caller decides when to call ``evenlySpaced(count:)`` and re-key the column.
    public static let rekeyThreshold = 24

    /// Creates a rank from `raw`, or returns `nil` if `raw` is not a valid rank.
    ///
    /// A valid rank is non-empty, at most ``maxLength`` characters long, made only of the
    /// characters `0-9A-Za-z`, and does not end with `0`.
    public init?(_ raw: String) {
        guard Rank.isValid(raw) else { return nil }
        self.rawValue = raw
    }

    /// Creates a rank without validating `raw`; the caller guarantees it is valid.
    init(unchecked raw: String) {
        self.rawValue = raw
    }

    /// Creates a rank from base-62 digit values (each in `0..<62`); the caller guarantees validity.
    init(uncheckedDigits digits: [UInt8]) {
        self.rawValue = String(decoding: digits.map { Rank.alphabet[Int($0)] }, as: UTF8.self)
    }

    /// Whether `raw` satisfies every rule of a valid rank.
    static func isValid(_ raw: String) -> Bool {
        let bytes = raw.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength, bytes.last != UInt8(ascii: "0") else {
            return false
        }
        return bytes.allSatisfy { digitValue(of: $0) != nil }
    }

    // MARK: CustomStringConvertible

    /// The rank's raw text.
    public var description: String { rawValue }

    // MARK: Comparable

    /// Orders ranks by comparing their UTF-8 bytes lexicographically (not by Unicode collation).
    ///
    /// Ranks are short ASCII strings, nearly always stored inline ("small" strings), so the bytes are compared in
    /// place with `memcmp` semantics; the generic `lexicographicallyPrecedes` over `UTF8View` was the top of the
    /// server's profile when placing cards on big columns.
    public static func < (lhs: Rank, rhs: Rank) -> Bool {
        var a = lhs.rawValue
        var b = rhs.rawValue
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                for i in 0..<common where x[i] != y[i] { return x[i] < y[i] }
                return x.count < y.count
            }
        }
    }

    // MARK: Codable

    /// Decodes a rank from a single string, throwing `DecodingError.dataCorrupted` if it is invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard Rank.isValid(raw) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Invalid rank \(String(reflecting: raw)): expected 1...\(Rank.maxLength) "
                    + "characters from 0-9A-Za-z not ending with '0'"
            )
        }
        self.rawValue = raw
    }

    /// Encodes the rank as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // MARK: Generation

    /// Returns a rank strictly between `lower` and `upper`, or `nil` if none can be produced.
    ///
    /// A `nil` `lower` means "before everything" and a `nil` `upper` means "after everything".
    /// Returns `nil` when `lower >= upper`, or when the shortest suitable rank would be longer
    /// than ``maxLength`` (the caller should then re-key the column with ``evenlySpaced(count:)``).
    ///
    /// Keys are kept short:
    /// - `between(nil, nil)` is the middle key `"V"`.
    /// - Appending (`upper == nil`) and prepending (`lower == nil`) step by one digit, so a
    ///   single character absorbs up to 61 consecutive appends or prepends before growing.
    /// - With both bounds given, the result is the shortest key near the midpoint of the gap.
    public static func between(_ lower: Rank?, _ upper: Rank?) -> Rank? {
        let digits: [UInt8]
        switch (lower, upper) {
        case (nil, nil):
            digits = midpoint([], nil)
        case let (lower?, nil):
            digits = increment(lower.digits)
        case let (nil, upper?):
            digits = decrement(upper.digits)
        case let (lower?, upper?):
            guard lower < upper else { return nil }
            digits = midpoint(lower.digits, upper.digits)
        }
        guard !digits.isEmpty, digits.count <= maxLength else { return nil }
        return Rank(uncheckedDigits: digits)
    }

    /// Returns `count` strictly increasing ranks spread evenly over the whole key space.
    ///
    /// All ranks use the fewest digits that can hold `count` distinct ranks: one character for
    /// up to 61 ranks, two for up to 3,843, three for up to 238,327, and so on. Each rank is the
    /// fraction `(i + 1) / (count + 1)` rounded down to that many digits (with trailing `0`s
    /// dropped). A `count` of zero or less returns an empty array.
    public static func evenlySpaced(count: Int) -> [Rank] {
        guard count > 0 else { return [] }
        // Smallest width whose non-zero keys (62^width - 1 of them) can hold `count` ranks.
        // Widths above 10 would need more ranks than any array can hold.
        var width = 1
        var space: UInt64 = 62
        while space - 1 < UInt64(count) {
            let (next, overflow) = space.multipliedReportingOverflow(by: 62)
            precondition(!overflow, "Rank.evenlySpaced: count \(count) is too large")
            width += 1
            space = next
        }
        let slots = UInt64(count) + 1
        return alphabet.withUnsafeBufferPointer { digitBytes in
            (1...UInt64(count)).map { index in
                // value = floor(index * space / slots), computed without overflow.
                let value = slots.dividingFullWidth(space.multipliedFullWidth(by: index)).quotient
                return Rank(unchecked: encode(value, width: width, digitBytes: digitBytes))
            }
        }
    }

    // MARK: Digit arithmetic

    /// The 62 digit characters, as ASCII bytes, in increasing order.
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The radix of rank digits.
    static let base: UInt8 = 62

    /// Writes `value` (in `1..<62^width`) as exactly `width` base-62 digits, minus trailing `0`s.
    static func encode(_ value: UInt64, width: Int, digitBytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: width) { buffer in
            var remaining = value
            for position in stride(from: width - 1, through: 0, by: -1) {
                buffer[position] = digitBytes[Int(remaining % 62)]
                remaining /= 62
            }
            var length = width
            while length > 1, buffer[length - 1] == UInt8(ascii: "0") { length -= 1 }
            return length
        }
    }

    /// The value (`0..<62`) of an alphabet byte, or `nil` if the byte is not in the alphabet.
    static func digitValue(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 36
        default: nil
        }
    }

    /// The rank's base-62 digit values, most significant first.
    var digits: [UInt8] {
        rawValue.utf8.map { Rank.digitValue(of: $0) ?? 0 }
    }

    /// The shortest key greater than `lower` whose digits differ by a step of one.
    ///
    /// Finds the first digit of `lower` (padded with zeros) that is not the top digit and
    /// increments it, dropping everything after it.
    static func increment(_ lower: [UInt8]) -> [UInt8] {
        var index = 0
        while true {
            let digit = index < lower.count ? lower[index] : 0
            if digit < base - 1 {
                return Array(lower.prefix(index)) + [digit + 1]
            }
            index += 1
        }
    }

    /// The shortest key less than `upper` reached by stepping one digit down.
    ///
    /// Finds the first non-zero digit of `upper`; if it is at least 2 it is decremented,
    /// otherwise (it is 1) it becomes `0` followed by the top digit, e.g. `"1"` → `"0z"`.
    static func decrement(_ upper: [UInt8]) -> [UInt8] {
        for (index, digit) in upper.enumerated() where digit != 0 {
            let prefix = Array(upper.prefix(index))
            return digit >= 2 ? prefix + [digit - 1] : prefix + [0, base - 1]
        }
        return []  // Unreachable for valid ranks, which always contain a non-zero digit.
    }

    /// A short key strictly between `lower` and `upper` (`nil` meaning 1.0), near their midpoint.
    ///
    /// Requires `lower < upper` as fractions, and neither to end with a zero digit.
    static func midpoint(_ lower: [UInt8], _ upper: [UInt8]?) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        if let upper {
            // Skip the common prefix, reading `lower` as padded with zeros.
            while index < upper.count, (index < lower.count ? lower[index] : 0) == upper[index] {
                result.append(upper[index])
                index += 1
            }
            // `lower < upper` guarantees the digits differ before `upper` runs out.
            guard index < upper.count else { return [] }
            let low = index < lower.count ? lower[index] : 0
            let high = upper[index]
            guard low < high else { return [] }
            if Int(high) - Int(low) > 1 {
                return result + [(low + high) / 2]
            }
            if upper.count > index + 1 {
                // `upper` truncated after this digit is shorter, still below `upper`, above `lower`.
                return result + [high]
            }
            // Consecutive digits and `upper` ends here: keep `lower`'s digit and go deeper.
            result.append(low)
            index += 1
        }
        // From here the upper bound is 1.0 (relative to the current position).
        while true {
            let low = index < lower.count ? lower[index] : 0
            if base - low > 1 {
                return result + [(low + base) / 2]
            }
            result.append(low)
            index += 1
        }
    }
}
