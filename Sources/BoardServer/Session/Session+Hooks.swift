import BoardCore
import BoardStore
import BoardWire
import Foundation

extension Session {
    /// `hook.add`, `hook.list`, `hook.remove`, `hook.test`: a board's webhooks, for its owner only. A non-member
    /// gets `not_found` (as for a missing board), another member `forbidden`.
    static func hookRequest(_ message: ClientMessage, as ref: SessionRef, context: SessionContext, outbox: Outbox) async {
        guard case let (board, req)? = hookTarget(message) else { return }
        guard
            let seq = await owned(
                board, by: ref, req: req, refusal: "only the board's owner manages its webhooks", context: context, outbox: outbox)
        else { return }
        let reply: ServerMessage
        do throws(WireError) {
            switch message {
            case .addHook(let m): reply = try await addHook(m, seq: seq, as: ref, context: context)
            case .listHooks(let m): reply = try await listHooks(m, context: context)
            case .removeHook(let m): reply = try await removeHook(m, context: context)
            case .testHook(let m): reply = try await testHook(m, seq: seq, context: context)
            default: return
            }
        } catch {
            var error = error
            error.req = req
            error.board = board
            outbox.send(Lines.error(error))
            return
        }
        outbox.send(Lines.line(reply))
    }

    /// The board a hook request names, and its `req`; nil for other messages.
    private static func hookTarget(_ message: ClientMessage) -> (BoardID, RequestID?)? {
        switch message {
        case .addHook(let m): (m.board, m.req)
        case .listHooks(let m): (m.board, m.req)
        case .removeHook(let m), .testHook(let m): (m.board, m.req)
        default: nil
        }
    }

    /// Longest and shortest secret a client may choose, in bytes.
    static let hookSecretBytes = 16...256

    private static func addHook(
        _ request: ClientMessage.AddHook, seq: UInt64, as ref: SessionRef, context: SessionContext
    ) async throws(WireError) -> ServerMessage {
        let settings = context.configuration.currentHooks
        if case .failure(let problem) = HookFilter.parse(request.events) { throw WireError(.badRequest, problem.message) }
        if case .failure(let problem) = HookDelivery.parseQuery(request.query) { throw WireError(.badRequest, problem.message) }
        if case .failure(let problem) = HookTarget.parse(request.url, settings) { throw WireError(.badRequest, problem.message) }
        if let secret = request.secret {
            guard hookSecretBytes.contains(secret.utf8.count), secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw WireError(
                    .badRequest,
                    "field `secret`: \(hookSecretBytes.lowerBound)–\(hookSecretBytes.upperBound) printable ASCII characters without spaces")
            }
        }
        // The same target for the same events and query twice would deliver every change twice: refused, naming the
        // hook. (The query compares as written: two spellings of one query are not caught.)
        let existing = try await fromStore { () async throws(StoreError) in try await context.store.hooks(board: request.board) }
        if let same = existing.first(where: {
            $0.url == request.url && Set($0.events) == Set(request.events) && $0.query == request.query
        }) {
            let (what, other) =
                request.query == nil ? ("these events", "events") : ("these events and this query", "events or another query")
            throw WireError(
                .badRequest,
                "board \(request.board) already has webhook \(same.id) for this url and \(what); remove it first, or give other \(other)")
        }
        let secret = request.secret ?? Self.newHookSecret()
        // The cursor starts at the board's seq now: the hook is told of every change committed after this answer.
        let hook = HookRecord(
            id: "h-" + randomID(), board: request.board, url: request.url, events: request.events, query: request.query,
            secret: secret, createdBy: ref.user, createdAt: context.clock.now(), state: HookState(delivered: seq))
        let added = try await fromStore { () async throws(StoreError) in try await context.store.addHook(hook, maxPerBoard: settings.perBoardMax) }
        guard added else {
            throw WireError(.badRequest, "board \(request.board) has \(settings.perBoardMax) webhooks already, the most it may have")
        }
        context.configuration.hookSignals.hooksChanged()
        context.logger.info("webhook added", metadata: ["board": "\(request.board)", "hook": "\(hook.id)", "user": "\(ref.user)"])
        return .ok(ServerMessage.Ok(req: request.req, board: request.board, hook: hook.id, secret: request.secret == nil ? secret : nil))
    }

    private static func listHooks(_ request: ClientMessage.ListHooks, context: SessionContext) async throws(WireError) -> ServerMessage {
        let hooks = try await fromStore { () async throws(StoreError) in try await context.store.hooks(board: request.board) }
        let entries = hooks.map { hook in
            ServerMessage.HookEntry(
                hook: hook.id, url: hook.url, events: hook.events, query: hook.query, createdBy: hook.createdBy,
                createdAt: hook.createdAt.milliseconds, deliveredSeq: hook.state.delivered, failures: hook.state.failures,
                failing: hook.state.failing, lastError: hook.state.lastError,
                lastAttemptAt: hook.state.lastAttemptAt?.milliseconds)
        }
        return .hooks(ServerMessage.HookList(req: request.req, board: request.board, hooks: entries))
    }

    private static func removeHook(_ request: ClientMessage.HookRequest, context: SessionContext) async throws(WireError) -> ServerMessage {
        let removed = try await fromStore { () async throws(StoreError) in try await context.store.removeHook(request.hook, board: request.board) }
        guard removed else { throw WireError(.notFound, "no webhook \(request.hook) on board \(request.board)") }
        context.configuration.hookSignals.hooksChanged()
        return .ok(ServerMessage.Ok(req: request.req, board: request.board, hook: request.hook))
    }

    /// Sends a signed `hook.test` delivery now and answers once it ended (at most the request timeout later).
    private static func testHook(
        _ request: ClientMessage.HookRequest, seq: UInt64, context: SessionContext
    ) async throws(WireError) -> ServerMessage {
        let hook: HookRecord
        do {
            guard let found = try await context.store.hooks(board: request.board).first(where: { $0.id == request.hook }) else {
                throw WireError(.notFound, "no webhook \(request.hook) on board \(request.board)")
            }
            hook = found
        } catch let error as WireError {
            throw error
        } catch let error as StoreError {
            throw Self.hookStoreError(error)
        } catch {
            throw WireError(.internal, "the webhooks could not be read")
        }
        let payload = HookPayload.test(hook: hook, seq: seq, now: context.clock.now(), nonce: randomID())
        switch await HookSender.send(payload, to: hook.url, settings: context.configuration.currentHooks) {
        case .delivered(let status):
            context.configuration.hookSignals.retryNow(hook.id)
            return .ok(ServerMessage.Ok(req: request.req, board: request.board, hook: hook.id, delivered: true, status: status))
        case .failed(let status, let reason):
            return .ok(
                ServerMessage.Ok(
                    req: request.req, board: request.board, hook: hook.id, delivered: false, status: status, detail: reason))
        }
    }

    /// A new secret: 32 random bytes as 64 hex digits.
    static func newHookSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// A store failure as the wire error a hook request answers with.
    /// What `body` read from or wrote to the store; a failure as the wire's error.
    static func fromStore<T>(_ body: () async throws(StoreError) -> T) async throws(WireError) -> T {
        do {
            return try await body()
        } catch {
            throw hookStoreError(error)
        }
    }

    static func hookStoreError(_ error: StoreError) -> WireError {
        let code = error.wireCode(during: .write)
        return switch code {
        case .notFound: WireError(code, "no such board")
        case .storageBusy, .storageFull: WireError(code, "the store could not write; nothing was written")
        default: WireError(code, "the webhooks could not be stored or read")
        }
    }
}
