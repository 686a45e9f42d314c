/// A single-pass byte scanner that vets one JSON line before any decoder sees it.
///
/// It enforces what Foundation's parsers do not, or do inconsistently (RELIABILITY.md b2): nesting depth, keys per
/// object, string length, well-formed UTF-8 (no overlong forms, no surrogates, raw or escaped), no duplicate keys
/// (Foundation's two parsers disagree on which one wins), and numbers that are non-negative integers no larger
/// than 2^53 − 1 (no fractions, no exponents, never silently rounded). The line must hold exactly one JSON object.
/// It allocates only for object keys and never recurses, so `[` × 100,000 fails fast at the depth limit.
public struct JSONPreScan: Sendable {
    /// The bounds a line is checked against.
    public var limits: Limits

    /// Makes a scanner with the given bounds.
    public init(limits: Limits = Limits()) { self.limits = limits }

    /// The bounds of one line's JSON.
    public struct Limits: Hashable, Sendable {
        /// Deepest nesting of objects and arrays (the line's own object is depth 1).
        public var maxDepth: Int = 16
        /// Most keys in one object.
        public var maxKeys: Int = 256
        /// Longest string, in decoded UTF-8 bytes.
        public var maxStringBytes: Int = 16 * 1024
        /// Largest integer allowed (2^53 − 1, so every JSON reader gets it exactly).
        public var maxInteger: UInt64 = (1 << 53) - 1

        /// The default bounds.
        public init() {}
    }

    /// Checks one line (without its newline). Returns nil when the line is acceptable.
    public func check(_ line: some Collection<UInt8>) -> JSONPreScanError? {
        if let result = line.withContiguousStorageIfAvailable({ check(buffer: $0) }) { return result }
        return Array(line).withUnsafeBufferPointer { check(buffer: $0) }
    }

    /// Checks one line held in contiguous memory.
    public func check(buffer: UnsafeBufferPointer<UInt8>) -> JSONPreScanError? {
        var scanner = Scanner(bytes: buffer, limits: limits)
        return scanner.run()
    }
}

/// Why a line failed the pre-scan: the wire error code it maps to, a sentence, and the byte offset.
public struct JSONPreScanError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of problem; each maps to one wire error code.
    public var kind: Kind
    /// A sentence for the client (never echoes raw input bytes).
    public var message: String
    /// The byte offset in the line where the problem was found.
    public var offset: Int

    /// Makes an error.
    public init(_ kind: Kind, _ message: String, at offset: Int) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    /// The class of problem, named after the wire error code it maps to.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Not JSON, or not one object: `bad_json`.
        case badJSON = "bad_json"
        /// Bytes or escapes that are not well-formed UTF-8 / Unicode: `invalid_utf8`.
        case invalidUTF8 = "invalid_utf8"
        /// Nested deeper than the limit: `depth_exceeded`.
        case depthExceeded = "depth_exceeded"
        /// The same key twice in one object: `duplicate_key`.
        case duplicateKey = "duplicate_key"
        /// Well-formed JSON the protocol never allows (floats, negatives, huge numbers, long strings, too many
        /// keys): `bad_request`.
        case badRequest = "bad_request"
    }

    /// `kind at offset N: message`.
    public var description: String { "\(kind.rawValue) at byte \(offset): \(message)" }
}
