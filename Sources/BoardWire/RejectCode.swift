import BoardCore

/// Why an `op` was refused: a reducer rejection code, or one of the wire-level reasons (Protocol.md, "reject").
public enum RejectCode: Hashable, Sendable, Codable, CaseIterable, RawRepresentable, CustomStringConvertible {
    /// The reducer refused the op (BoardCore `Rejection.Code`).
    case rejected(Rejection.Code)
    /// The user's token bucket is empty; retry after `retry_after_ms`.
    case rateLimited
    /// The store is out of space; the op was not applied.
    case storageFull
    /// The store is busy; the op was not applied. Retry.
    case storageBusy
    /// An unexpected server fault; the op was not applied.
    case `internal`
    /// This `mut` of this client was already applied on another board; nothing was applied here.
    case staleMut

    /// Every code: the reducer's, then the wire-level ones.
    public static let allCases: [RejectCode] =
        Rejection.Code.allCases.map(RejectCode.rejected)
        + [.rateLimited, .storageFull, .storageBusy, .internal, .staleMut]

    /// Reads a code from its wire name.
    public init?(rawValue: String) {
        if let code = Rejection.Code(rawValue: rawValue) {
            self = .rejected(code)
            return
        }
        switch rawValue {
        case "rate_limited": self = .rateLimited
        case "storage_full": self = .storageFull
        case "storage_busy": self = .storageBusy
        case "internal": self = .internal
        case "stale_mut": self = .staleMut
        default: return nil
        }
    }

    /// The code's wire name, e.g. `wip_limit` or `rate_limited`.
    public var rawValue: String {
        switch self {
        case .rejected(let code): code.rawValue
        case .rateLimited: "rate_limited"
        case .storageFull: "storage_full"
        case .storageBusy: "storage_busy"
        case .internal: "internal"
        case .staleMut: "stale_mut"
        }
    }

    /// Whether sending the same op again later (a new `mut`) may succeed without changing it.
    public var retryable: Bool {
        switch self {
        case .rateLimited, .storageFull, .storageBusy, .internal: true
        case .rejected, .staleMut: false
        }
    }

    /// The code's wire name.
    public var description: String { rawValue }

    /// Decodes a wire name; an unknown name is a decoding error.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let raw = try c.decode(String.self)
        guard let code = RejectCode(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown reject code \"\(raw)\"")
        }
        self = code
    }

    /// Encodes the wire name.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
