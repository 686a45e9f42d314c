import BoardCore
import Foundation

/// Turns one protocol line into a message and a message into one line.
///
/// Decoding expects a line that the framing layer cut at `\n` (a trailing `\n` or `\r\n` is tolerated) and that the
/// byte pre-scan has passed (depth, keys, string sizes, duplicate keys, floats; see Protocol.md, "Conventions").
/// Every failure is a `WireError` with the code the server sends back. Encoding produces compact JSON with no raw
/// newline, with keys sorted (key order carries no meaning on the wire), without the terminating `\n` (see
/// `encodeLine`).
public struct LineCoder: Sendable {
    /// The byte pre-scan every client line passes before it is decoded.
    public var preScan: JSONPreScan

    /// Makes a coder whose pre-scan enforces `limits` (`json_depth`, `json_keys`, `string_max`).
    public init(limits: WireLimits = WireLimits()) {
        var scan = JSONPreScan.Limits()
        scan.maxDepth = limits.jsonDepth
        scan.maxKeys = limits.jsonKeys
        scan.maxStringBytes = limits.stringMax
        preScan = JSONPreScan(limits: scan)
    }

    /// Decodes a line a client sent: the byte pre-scan (depth, keys, string sizes, UTF-8, duplicate keys, floats and
    /// out-of-range integers) and the typed decode, in one pass over the line's bytes and without copying them when
    /// they are contiguous (a `ByteBuffer`'s readable bytes are): the pre-scan records what it reads on a
    /// `JSONTape`, and the messages' `Decodable` initialisers read that (`TapeDecoder`).
    ///
    /// A line that fails anywhere is decoded again by `decodeClientReference`, the Foundation path, so that the
    /// error (its code, message and echoed `req`, `board`, `mut`) is exactly that path's; both paths agree on every
    /// line (a differential test checks it). This is the entry point to fuzz.
    public func decodeClient(_ line: some Collection<UInt8>) throws(WireError) -> ClientMessage {
        let decoded = line.withContiguousStorageIfAvailable { decodeInOnePass($0) }
        if let message = decoded ?? Array(line).withUnsafeBufferPointer({ decodeInOnePass($0) }) { return message }
        return try decodeClientReference(line)
    }

    /// The one-pass decode of a line (a trailing `\n` or `\r\n` is tolerated): nil when the line fails the
    /// pre-scan, does not decode, or fails validation. The frequent messages (`op`, `presence`, `ping`, `pong`) are
    /// read field by field off the tape (`TapeReader`); the others, and any line the reader is unsure of, go
    /// through the messages' `Decodable` initialisers (`TapeDecoder`).
    public func decodeInOnePass(_ line: UnsafeBufferPointer<UInt8>) -> ClientMessage? {
        scanned(line) { bytes, nodes in
            if let message = TapeReader(bytes: bytes, nodes: nodes, limits: preScan.limits).message() { return message }
            let decoder = TapeDecoder(bytes: bytes, nodes: nodes, limits: preScan.limits)
            guard let message = try? ClientMessage(from: decoder), message.validationProblem == nil else { return nil }
            return message
        }
    }

    /// The field-by-field reader alone (for tests and the fuzzer): the frequent message the line holds, or nil when
    /// the line fails the pre-scan, is another message, or the reader leaves it to the general path.
    public func decodeFieldByField(_ line: UnsafeBufferPointer<UInt8>) -> ClientMessage? {
        scanned(line) { bytes, nodes in TapeReader(bytes: bytes, nodes: nodes, limits: preScan.limits).message() }
    }

    /// Runs the pre-scan over the line without its terminator, recording a tape, and reads the tape with `read`;
    /// nil when the pre-scan fails.
    private func scanned(
        _ line: UnsafeBufferPointer<UInt8>,
        _ read: (UnsafeBufferPointer<UInt8>, [JSONTape.Node]) -> ClientMessage?
    ) -> ClientMessage? {
        var count = line.count
        if count > 0, line[count - 1] == 0x0A { count -= 1 }
        if count > 0, line[count - 1] == 0x0D { count -= 1 }
        let bytes = UnsafeBufferPointer(rebasing: line[0..<count])
        var scanner = JSONPreScan.Scanner(bytes: bytes, limits: preScan.limits)
        scanner.tape = JSONTape()
        guard scanner.run() == nil, let tape = scanner.tape else { return nil }
        return read(bytes, tape.nodes)
    }

    /// Decodes a line a client sent the reference way: the byte pre-scan first, then Foundation's `JSONDecoder`.
    /// `decodeClient` answers exactly as this does, faster; this stays as the reference for tests and for errors.
    public func decodeClientReference(_ line: some Collection<UInt8>) throws(WireError) -> ClientMessage {
        var bytes = Array(line)
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        if let problem = preScan.check(bytes) {
            let code = ErrorCode(rawValue: problem.kind.rawValue) ?? .badJSON
            var error = WireError(code, "\(problem.message) (byte \(problem.offset))")
            if code != .invalidUTF8, code != .badJSON, let probe = LineCoder.probe(bytes) {
                error.req = probe.req
                error.board = probe.board
                error.mut = probe.mut
            }
            throw error
        }
        bytes = try LineCoder.checkedBytes(bytes)
        let message = try LineCoder.decode(ClientMessage.self, from: bytes)
        if let problem = message.validationProblem {
            let probe = LineCoder.probe(bytes)
            throw WireError(.badRequest, problem, req: message.req, board: probe?.board, mut: probe?.mut)
        }
        return message
    }

    /// The line's `type` field, read leniently from a line that failed to decode; nil when the line is not a JSON
    /// object with a string `type` (the session uses it before `welcome`, where only a malformed `hello`, `ping`,
    /// `pong` or `bye` keeps the connection open). A line that starts with a byte order mark is not a JSON line at
    /// all, so it has no type either.
    public static func messageType(of line: some Collection<UInt8>) -> String? {
        var bytes = Array(line)
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return nil }
        return probe(bytes)?.type
    }

    /// Decodes a line a server sent: in one pass over its bytes, as a client line is (the scan records a tape; a
    /// `delta` is read off it field by field by `TapeReader`, the other messages by their `Decodable` initialisers
    /// through `TapeDecoder`), with no limits but the nesting depth,
    /// since the server is trusted to send what it may. A line that does not decode that way is decoded again by
    /// `decodeServerReference` (Foundation's `JSONDecoder`), whose answer, error included, is the one given; both
    /// agree on every line (a differential test checks it).
    public func decodeServer(_ line: some Collection<UInt8>) throws(WireError) -> ServerMessage {
        let decoded = line.withContiguousStorageIfAvailable { LineCoder.decodeServerInOnePass($0) }
        if let message = decoded ?? Array(line).withUnsafeBufferPointer({ LineCoder.decodeServerInOnePass($0) }) {
            return message
        }
        return try decodeServerReference(line)
    }

    /// Decodes a line a server sent the reference way, with Foundation's `JSONDecoder`.
    public func decodeServerReference(_ line: some Collection<UInt8>) throws(WireError) -> ServerMessage {
        try LineCoder.decode(ServerMessage.self, from: try LineCoder.checkedBytes(line))
    }

    /// What the one-pass decode of a server line checks: only how deep it nests (a snapshot of a large board has
    /// many keys and long strings, all within the server's own limits).
    static let serverScanLimits: JSONPreScan.Limits = {
        var limits = JSONPreScan.Limits()
        limits.maxDepth = 64
        limits.maxKeys = .max
        limits.maxStringBytes = .max
        return limits
    }()

    /// The one-pass decode of a server line (a trailing `\n` or `\r\n` is tolerated); nil when it does not decode.
    public static func decodeServerInOnePass(_ line: UnsafeBufferPointer<UInt8>) -> ServerMessage? {
        var count = line.count
        if count > 0, line[count - 1] == 0x0A { count -= 1 }
        if count > 0, line[count - 1] == 0x0D { count -= 1 }
        let bytes = UnsafeBufferPointer(rebasing: line[0..<count])
        var scanner = JSONPreScan.Scanner(bytes: bytes, limits: serverScanLimits)
        scanner.tape = JSONTape()
        guard scanner.run() == nil, let tape = scanner.tape else { return nil }
        if let delta = TapeReader(bytes: bytes, nodes: tape.nodes, limits: serverScanLimits).serverMessage() { return delta }
        return try? ServerMessage(from: TapeDecoder(bytes: bytes, nodes: tape.nodes, limits: serverScanLimits))
    }

    /// Encodes a client message as compact one-line JSON, without the terminating newline.
    public func encode(_ message: ClientMessage) -> [UInt8] { LineCoder.encodeValue(message) }

    /// Encodes a server message as compact one-line JSON, without the terminating newline.
    public func encode(_ message: ServerMessage) -> [UInt8] { LineCoder.encodeValue(message) }

    /// Encodes a client message as one line, terminated by `\n`.
    public func encodeLine(_ message: ClientMessage) -> [UInt8] { encode(message) + [0x0A] }

    /// Encodes a server message as one line, terminated by `\n`.
    public func encodeLine(_ message: ServerMessage) -> [UInt8] { encode(message) + [0x0A] }

    // MARK: Internals

    /// The line without its terminator, after checking that it is UTF-8 without a byte order mark.
    static func checkedBytes(_ line: some Collection<UInt8>) throws(WireError) -> [UInt8] {
        var bytes = Array(line)
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw WireError(.invalidUTF8, "the line is not valid UTF-8")
        }
        guard !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else {
            throw WireError(.badJSON, "a line must not start with a byte order mark")
        }
        return bytes
    }

    /// Decodes `type` from `bytes`, turning every failure into a `WireError` that echoes what it can.
    static func decode<Message: Decodable>(_ type: Message.Type, from bytes: [UInt8]) throws(WireError) -> Message {
        do {
            return try JSONDecoder().decode(Message.self, from: Data(bytes))
        } catch {
            var wire = WireError.decoding(error, isJSON: LineCoder.isJSONObject(bytes))
            if let probe = LineCoder.probe(bytes) {
                wire.req = wire.req ?? probe.req
                wire.board = wire.board ?? probe.board
                wire.mut = wire.mut ?? probe.mut
            }
            throw wire
        }
    }

    /// Compact JSON for a message, through the same writer as the server's lines (`CompactJSONEncoder`), so each
    /// direction of the wire has one encoder. `JSONEncoder` is the fallback for a value that writer refuses (a
    /// float, which no message has); a message that cannot be encoded at all becomes an `internal` error line
    /// rather than a crash.
    static func encodeValue(_ value: some Encodable) -> [UInt8] {
        if let bytes = try? CompactJSONEncoder().encode(value) { return bytes }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(value) { return Array(data) }
        let fallback = ServerMessage.error(WireError(.internal, "the server could not encode a message"))
        return (try? encoder.encode(fallback)).map(Array.init) ?? Array(#"{"type":"error","code":"internal"}"#.utf8)
    }

    /// Whether the bytes parse as a JSON object (used to tell syntax errors from out-of-range numbers).
    static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
    }

    /// The envelope fields an error echoes, read leniently from a line that failed to decode.
    struct Probe: Decodable {
        var type: String?
        var req: RequestID?
        var board: BoardID?
        var mut: UInt64?

        enum CodingKeys: String, CodingKey {
            case type, req, board, mut
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try? c.decodeIfPresent(String.self, forKey: .type)
            req = try? c.decodeIfPresent(RequestID.self, forKey: .req)
            board = (try? c.decodeIfPresent(BoardID.self, forKey: .board)).flatMap { $0?.isValid == true ? $0 : nil }
            mut = try? c.decodeIfPresent(UInt64.self, forKey: .mut)
        }
    }

    /// The line's `type`, `req`, `board` (when well-formed) and `mut`, as far as they are readable.
    static func probe(_ bytes: [UInt8]) -> Probe? {
        try? JSONDecoder().decode(Probe.self, from: Data(bytes))
    }
}
