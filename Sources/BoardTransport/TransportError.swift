import BoardWire

/// An error raised by the transport pipeline: a code from a closed set and a sentence for people.
///
/// Handlers fire these through `fireErrorCaught`, so the session sees them as the error that ends its inbound
/// stream; ``wireCode`` says which `error` line (if any) it sends before closing.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of a transport error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case lineTooLong = "line_too_long"
            case lineTimeout = "line_timeout"
            case slowConsumer = "slow_consumer"
            case handshakeTimeout = "handshake_timeout"
            case pinMismatch = "pin_mismatch"
            case invalidFingerprint = "invalid_fingerprint"
            case certificateFiles = "certificate_files"
            case invalidHost = "invalid_host"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// An inbound line passed the current line cap.
        public static let lineTooLong = Code(.lineTooLong)
        /// An inbound line was not finished within the line timeout of its first byte.
        public static let lineTimeout = Code(.lineTimeout)
        /// The outbox passed its byte cap or its write deadline.
        public static let slowConsumer = Code(.slowConsumer)
        /// The TLS handshake did not finish in time.
        public static let handshakeTimeout = Code(.handshakeTimeout)
        /// The server's certificate does not have the pinned fingerprint.
        public static let pinMismatch = Code(.pinMismatch)
        /// A fingerprint string is not `sha256:` followed by 64 hex digits.
        public static let invalidFingerprint = Code(.invalidFingerprint)
        /// The certificate files in a data directory are incomplete or unreadable.
        public static let certificateFiles = Code(.certificateFiles)
        /// A host name for a certificate is empty or not a valid DNS name or IP address.
        public static let invalidHost = Code(.invalidHost)

        /// The code's snake_case name.
        public var description: String { base.rawValue }
    }

    /// The machine-readable kind.
    public var code: Code
    /// A sentence that names the reason.
    public var message: String

    /// Makes an error from a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The wire error code the session sends before closing, or `nil` when no line can or should be sent.
    public var wireCode: ErrorCode? {
        switch code {
        case .lineTooLong: .lineTooLong
        case .lineTimeout: .lineTimeout
        case .slowConsumer: .slowConsumer
        default: nil
        }
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// A line longer than `limit` bytes.
    public static func lineTooLong(limit: Int) -> TransportError {
        TransportError(.lineTooLong, "a line passed the limit of \(limit) bytes")
    }

    /// A line not finished within `milliseconds` of its first byte.
    public static func lineTimeout(milliseconds: Int64) -> TransportError {
        TransportError(.lineTimeout, "a line was not finished within \(milliseconds) ms of its first byte")
    }

    /// An outbox that passed its cap or its write deadline; `reason` says which.
    public static func slowConsumer(_ reason: String) -> TransportError {
        TransportError(.slowConsumer, reason)
    }

    /// A TLS handshake that did not finish within `milliseconds`.
    public static func handshakeTimeout(milliseconds: Int64) -> TransportError {
        TransportError(.handshakeTimeout, "the TLS handshake did not finish within \(milliseconds) ms")
    }

    /// A server certificate whose fingerprint is `actual` where `expected` was pinned.
    public static func pinMismatch(expected: Fingerprint, actual: Fingerprint?) -> TransportError {
        guard let actual else {
            return TransportError(
                .pinMismatch, "the server sent no usable certificate; the pinned one is \(expected)")
        }
        return TransportError(
            .pinMismatch, "certificate fingerprint \(actual) does not match the pinned \(expected)")
    }
}
