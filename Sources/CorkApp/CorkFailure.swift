import BoardClient
import BoardCore

/// Why a `cork` command failed: the exit code and the line for stderr.
public struct CorkFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The process's exit code.
    public var exitCode: CorkExitCode
    /// One line for stderr, without the `cork:` prefix.
    public var message: String
    /// The server's reject, when the failure is one (exit 3).
    public var reject: OpRejection?
    /// Set when the server asked to be tried again before it welcomed this session (`server_full`: no room for
    /// another session; `storage_busy`: it could not check the token, its database down): nothing was sent, and the
    /// command tries again until its time is up.
    public var triedAgainBeforeWelcome = false
    /// The server could not be reached at all (nothing listening, no route, no answer in time): a person starting
    /// the full-screen board may wait for it to come back. Never set for a refusal (a token, a certificate).
    public var unreachable = false

    /// Makes a failure.
    public init(_ exitCode: CorkExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// A usage error (exit 2).
    public static func usage(_ message: String) -> CorkFailure { CorkFailure(.usage, message) }

    /// The failure for a server reject: exit 3 with `code: message`.
    public init(reject: OpRejection) {
        self.init(.rejected, "\(reject.code.rawValue): \(reject.message)")
        self.reject = reject
    }

    /// The card a `duplicate_ref` reject names in its `current` (`{"card": ID, "number": N}`).
    public var duplicateRefCard: CardID? {
        guard let reject, reject.code == .rejected(.duplicateRef), case .object(let current)? = reject.current,
            let id = current["card"]?.stringValue
        else { return nil }
        return CardID(id)
    }

    /// The failure for a reference that names nothing (exit 5) or not exactly one thing (exit 2).
    public init(_ error: ResolutionError) {
        switch error.code {
        case .notFound, .gone: self.init(.notFound, error.message)
        case .invalid, .ambiguous: self.init(.usage, error.message)
        }
    }

    /// The failure for a client error: connection and authentication problems are exit 4, a board that does not
    /// exist (or that the user is not a member of) exit 5, a reject exit 3.
    public init(_ error: ClientError) {
        switch error.code {
        case .cannotConnect:
            self.init(.cannotConnect, error.message)
            unreachable = true
        case .tls where error.message.hasSuffix("does not match the pinned fingerprint"):
            // What to do next, as SSH says it: the pin is cork's, kept in known_hosts.
            self.init(
                .cannotConnect,
                error.message + " (someone may be intercepting the connection; if the server's certificate was replaced, "
                    + "remove its line from known_hosts in cork's config directory, ~/.config/cork, and join with a new invite URL)")
        case .tls:
            self.init(.cannotConnect, error.message)
        case .server:
            switch error.server?.code {
            case .authFailed?, .tokenExpired?, .tokenRevoked?, .unsupportedVersion?, .serverFull?, .unauthenticated?:
                self.init(.cannotConnect, error.message)
            case .notFound?:
                self.init(.notFound, error.message)
            case .forbidden?:
                self.init(.rejected, error.message)
            default:
                self.init(.failure, error.message)
            }
        case .rejected:
            if let reject = error.reject {
                self.init(reject: reject)
            } else {
                self.init(.rejected, error.message)
            }
        case .invalidArgument:
            self.init(.usage, error.message)
        case .disconnected, .timeout, .stopped, .protocolError, .journal:
            self.init(.failure, error.message)
        }
    }

    /// The failure for an error while waiting for an op's answer: a connection that failed or a wait that ran out
    /// leaves the op's outcome unknown (exit 6); anything else maps as any error does (`from`).
    public init(afterSending error: any Error) {
        if let error = error as? ClientError {
            let advice = "(retrying `add --ref` is safe; for other ops check `cork history` first)"
            switch error.code {
            case .cannotConnect, .tls:
                // The op went out on a connection that was lost since; this error is the reconnect's.
                self.init(
                    .outcomeUnknown,
                    "the connection was lost after the op was sent, and could not be made again (\(error.message)): "
                        + "the op may have been applied \(advice)")
                return
            case .disconnected, .timeout, .stopped:
                self.init(.outcomeUnknown, "\(error.message); the op was sent and may have been applied \(advice)")
                return
            default:
                break
            }
        }
        self = CorkFailure.from(error)
    }

    /// The failure for any error: ours as is, client and resolution errors mapped, anything else exit 1.
    public static func from(_ error: any Error) -> CorkFailure {
        switch error {
        case let failure as CorkFailure: failure
        case let client as ClientError: CorkFailure(client)
        case let resolution as ResolutionError: CorkFailure(resolution)
        case let query as QueryError: CorkFailure(.usage, "bad query: \(query)")
        default: CorkFailure(.failure, "\(error)")
        }
    }
}
