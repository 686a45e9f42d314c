import BoardCore
import BoardWire

/// The lifecycle of one connection as a state machine that returns actions (STYLE.md 3); no sockets, no clock.
///
/// It enforces the pre-authentication rules (only `hello`, `ping`, `pong` and `bye` before `welcome`; a malformed one
/// of those is answered and the connection stays open), version negotiation (an unsupported version keeps the
/// connection open for another `hello`), a single `hello`, and the error budget (too many bad lines in a window close
/// the connection with `too_many_errors`, before `welcome` as after).
struct SessionMachine {
    enum State: Equatable {
        case awaitingHello
        case authenticating
        case open(user: UserID)
        case closed
    }

    /// What the session should do next. Indirect: an action lives in the session's async frames, which a Swift
    /// task keeps at their deepest size for as long as the connection lives (`Session.inOwnTask`).
    indirect enum Action: Equatable {
        /// Check this hello's token.
        case authenticate(ClientMessage.Hello)
        /// Handle this authenticated request.
        case handle(ClientMessage)
        /// Answer with this line and keep going.
        case reply(ServerMessage)
        /// Send this error and close.
        case close(WireError)
        /// Close without a line (the client said `bye`).
        case closeQuietly
        /// Nothing to do.
        case none
    }

    private(set) var state: State = .awaitingHello
    let errorBudget: Int
    let errorWindowMs: Int64
    private var errorTimes: [Int64] = []

    init(errorBudget: Int, errorWindowMs: Int64) {
        self.errorBudget = errorBudget
        self.errorWindowMs = errorWindowMs
    }

    /// A message arrived.
    mutating func received(_ message: ClientMessage) -> Action {
        switch (state, message) {
        case (.closed, _):
            return .none
        case (_, .ping(let heartbeat)):
            return .reply(.pong(Heartbeat(req: heartbeat.req)))
        case (_, .pong):
            return .none
        case (_, .bye):
            state = .closed
            return .closeQuietly
        case (.awaitingHello, .hello(let hello)):
            guard ProtocolVersion.supported.contains(hello.version) else {
                return .reply(.error(WireError.unsupportedVersion(hello.version, req: hello.req)))
            }
            state = .authenticating
            return .authenticate(hello)
        case (.awaitingHello, _), (.authenticating, _):
            state = .closed
            return .close(WireError(.unauthenticated, "say hello first", req: message.req))
        case (.open, .hello(let hello)):
            return .reply(.error(WireError(.badRequest, "this session is already authenticated", req: hello.req)))
        case (.open, _):
            return .handle(message)
        }
    }

    /// The token check finished: `user` on success, or the error that closes the connection.
    mutating func authenticated(_ outcome: Result<UserID, WireError>) -> Action {
        guard state == .authenticating else { return .none }
        switch outcome {
        case .success(let user):
            state = .open(user: user)
            return .none
        case .failure(let error):
            state = .closed
            return .close(error)
        }
    }

    /// A line failed to decode at `now` (milliseconds); `type` is its `type` field when that could be read. It is
    /// answered, and counted against the error budget.
    ///
    /// Before `welcome`, only a malformed `hello`, `ping`, `pong` or `bye` is answered with its error (the
    /// connection stays open for another try); any other line — another type, an unknown type, a line whose type
    /// cannot be read — closes the connection with `unauthenticated` (Protocol.md, "Connection lifecycle").
    mutating func badLine(_ error: WireError, type: String?, now: Int64) -> Action {
        guard state != .closed else { return .none }
        if state == .awaitingHello || state == .authenticating {
            guard let type, ClientMessage.allowedBeforeWelcome.contains(type) else {
                state = .closed
                return .close(WireError(.unauthenticated, "say hello first", req: error.req))
            }
        }
        errorTimes.append(now)
        errorTimes.removeAll { now - $0 >= errorWindowMs }
        if errorTimes.count > errorBudget {
            state = .closed
            return .close(WireError(.tooManyErrors, "more than \(errorBudget) bad lines within \(errorWindowMs / 1000) s"))
        }
        return .reply(.error(error))
    }

    /// The connection is gone.
    mutating func closed() { state = .closed }
}

extension WireError {
    /// The same error, marked as closing the connection.
    var closing: WireError {
        var copy = self
        copy.closesConnection = true
        return copy
    }
}
