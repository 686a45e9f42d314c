import BoardCore
import BoardWire

/// How a test delivery (``BoardClient/testHook(board:hook:timeout:)``) ended.
public struct HookTestResult: Hashable, Sendable {
    /// Whether the receiver answered 2xx.
    public var delivered: Bool
    /// The receiver's HTTP status, when it answered.
    public var status: Int?
    /// Why it was not delivered, when it was not.
    public var detail: String?
}

/// A board's outgoing webhooks (the `hook.*` requests, feature `hooks`); the board's owner only.
extension BoardClient {
    /// Adds a webhook to `board` for the changes `events` names (and, with a `query`, only those about a card that
    /// matches it); returns its id, and its secret when the server made one (shown this once).
    ///
    /// A query needs a server that lists the `hook_query` feature: an older one would ignore it and deliver every
    /// change, so it is refused here before anything is sent.
    public func addHook(
        board: BoardID, url: String, events: [String], query: String? = nil, secret: String?,
        timeout: Duration = .seconds(30)
    ) async throws(ClientError) -> (hook: String, secret: String?) {
        try requireHooks()
        if query != nil, welcome?.features?.contains("hook_query") != true {
            throw ClientError(
                .invalidArgument, "this server does not filter webhooks by query (no `hook_query` in welcome.features)")
        }
        let answer = try await request(timeout: timeout) {
            .addHook(ClientMessage.AddHook(req: $0, board: board, url: url, events: events, query: query, secret: secret))
        }
        guard case .ok(let ok) = answer, let hook = ok.hook else { throw unexpected(answer, "ok with a hook") }
        return (hook, ok.secret)
    }

    /// The board's webhooks and where their deliveries stand.
    public func hooks(board: BoardID, timeout: Duration = .seconds(30)) async throws(ClientError) -> [HookInfo] {
        try requireHooks()
        let answer = try await request(timeout: timeout) { .listHooks(ClientMessage.ListHooks(req: $0, board: board)) }
        guard case .hooks(let list) = answer else { throw unexpected(answer, "hooks") }
        return list.hooks
    }

    /// Removes a webhook of the board.
    public func removeHook(board: BoardID, hook: String, timeout: Duration = .seconds(30)) async throws(ClientError) {
        try requireHooks()
        let answer = try await request(timeout: timeout) {
            .removeHook(ClientMessage.HookRequest(req: $0, board: board, hook: hook))
        }
        guard case .ok = answer else { throw unexpected(answer, "ok") }
    }

    /// Has the server send a signed test delivery to the hook now; returns once it ended.
    public func testHook(board: BoardID, hook: String, timeout: Duration = .seconds(30)) async throws(ClientError)
        -> HookTestResult
    {
        try requireHooks()
        let answer = try await request(timeout: timeout) {
            .testHook(ClientMessage.HookRequest(req: $0, board: board, hook: hook))
        }
        guard case .ok(let ok) = answer, let delivered = ok.delivered else { throw unexpected(answer, "ok with delivered") }
        return HookTestResult(delivered: delivered, status: ok.status, detail: ok.detail)
    }

    /// Refuses before sending when the server's `welcome` does not list the `hooks` feature (Protocol.md,
    /// "Versioning").
    private func requireHooks() throws(ClientError) {
        guard let welcome, welcome.features?.contains("hooks") == true else {
            throw ClientError(.invalidArgument, "this server does not offer webhooks (no `hooks` in welcome.features)")
        }
    }
}
