import BoardCore

/// A wire error: a code from the closed set, a message for people, and what the client needs to react.
///
/// It is both the payload of the server's `error` line and the error `LineCoder` throws for a bad line.
/// `retryable` and `closesConnection` start from the code's flags.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable code.
    public var code: ErrorCode
    /// A sentence a person can act on; never echoes raw input.
    public var message: String
    /// Whether retrying (the same request, or reconnecting for a closing code) may succeed.
    public var retryable: Bool
    /// The request this error answers, when the line had a readable `req`.
    public var req: RequestID?
    /// The board the failed request named, when readable.
    public var board: BoardID?
    /// The mutation id of the failed `op` line, when readable.
    public var mut: UInt64?
    /// Whether the server closes the connection after this line (sent as `close: true`).
    public var closesConnection: Bool
    /// How long to wait before retrying (`rate_limited`, `server_full`, `storage_busy`).
    public var retryAfterMs: UInt64?
    /// The protocol versions the server speaks (`unsupported_version`).
    public var versions: [Int]?

    /// Makes an error whose `retryable` and `closesConnection` come from the code.
    public init(
        _ code: ErrorCode, _ message: String, req: RequestID? = nil, board: BoardID? = nil, mut: UInt64? = nil,
        retryAfterMs: UInt64? = nil, versions: [Int]? = nil
    ) {
        self.code = code
        // A message may quote what a client sent (an address, a query): its control characters go escaped.
        self.message = JSONEscaping.controlsEscaped(message)
        self.retryable = code.retryable
        self.req = req
        self.board = board
        self.mut = mut
        self.closesConnection = code.closesConnection
        self.retryAfterMs = retryAfterMs
        self.versions = versions
    }

    /// The answer to a `hello` whose version the server does not speak; the connection stays open.
    public static func unsupportedVersion(_ version: Int, req: RequestID? = nil) -> WireError {
        WireError(
            .unsupportedVersion, "protocol version \(version) is not supported; say hello again with one of `versions`",
            req: req, versions: ProtocolVersion.supported)
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

extension WireError: Codable {
    enum CodingKeys: String, CodingKey {
        case code, message, retryable, req, board, mut, close
        case retryAfterMs = "retry_after_ms"
        case versions
    }

    /// Decodes the fields of an `error` line (`close` absent means false).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decode(ErrorCode.self, forKey: .code)
        message = try c.decode(String.self, forKey: .message)
        retryable = try c.decode(Bool.self, forKey: .retryable)
        req = try c.decodeIfPresent(RequestID.self, forKey: .req)
        board = try c.decodeIfPresent(BoardID.self, forKey: .board)
        mut = try c.decodeIfPresent(UInt64.self, forKey: .mut)
        closesConnection = try c.decodeIfPresent(Bool.self, forKey: .close) ?? false
        retryAfterMs = try c.decodeIfPresent(UInt64.self, forKey: .retryAfterMs)
        versions = try c.decodeIfPresent([Int].self, forKey: .versions)
    }

    /// Encodes the fields of an `error` line; `close` only when true.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(message, forKey: .message)
        try c.encode(retryable, forKey: .retryable)
        try c.encodeIfPresent(req, forKey: .req)
        try c.encodeIfPresent(board, forKey: .board)
        try c.encodeIfPresent(mut, forKey: .mut)
        if closesConnection { try c.encode(true, forKey: .close) }
        try c.encodeIfPresent(retryAfterMs, forKey: .retryAfterMs)
        try c.encodeIfPresent(versions, forKey: .versions)
    }
}
