import BoardCore
import BoardWire

/// Why a client call failed: a code from a closed set, a sentence a person can act on, and the server's details
/// when the server said no.
public struct ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// No endpoint could be reached (refused, unreachable, DNS, timeout while dialling).
        case cannotConnect = "cannot_connect"
        /// TLS failed: certificate pin mismatch, CA or host-name verification, handshake.
        case tls
        /// The server refused the session or a request with an `error` (see ``server``).
        case server
        /// The server rejected an op (see ``reject``).
        case rejected
        /// The connection went away before the answer arrived.
        case disconnected
        /// An answer did not arrive in time.
        case timeout
        /// The client was stopped (or is not running).
        case stopped
        /// The server broke the protocol (an answer that makes no sense here).
        case protocolError = "protocol_error"
        /// The local op journal could not be read or written.
        case journal
        /// A bad argument from the caller (a malformed URL, an op for another board).
        case invalidArgument = "invalid_argument"
    }

    /// The kind.
    public var code: Code
    /// What happened, for a person.
    public var message: String
    /// The server's `error`, for ``Code/server``.
    public var server: WireError?
    /// The server's `reject`, for ``Code/rejected``.
    public var reject: OpRejection?

    /// An error.
    public init(_ code: Code, _ message: String, server: WireError? = nil, reject: OpRejection? = nil) {
        self.code = code
        self.message = message
        self.server = server
        self.reject = reject
    }

    /// A server `error`.
    public static func server(_ error: WireError) -> ClientError {
        ClientError(.server, "\(error.code.rawValue): \(error.message)", server: error)
    }

    /// A server `reject`.
    public static func rejected(_ reject: OpRejection) -> ClientError {
        ClientError(.rejected, "\(reject.code.rawValue): \(reject.message)", reject: reject)
    }

    public var description: String { message }

    /// Whether the session can never succeed as configured: a bad, expired or revoked token, a pin mismatch, no
    /// common protocol version. Reconnecting does not help.
    public var isFatal: Bool {
        switch code {
        case .tls, .journal, .invalidArgument, .stopped: return true
        case .server:
            switch server?.code {
            case .authFailed, .tokenExpired, .tokenRevoked, .unsupportedVersion, .unauthenticated, .tooManyErrors:
                return true
            default:
                return false
            }
        default:
            return false
        }
    }
}
