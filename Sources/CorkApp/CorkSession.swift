import BoardClient
import BoardCore
import Foundation

/// One connection of a `cork` command: the known-hosts check, the client configuration, waiting for the board, and
/// every failure turned into a ``CorkFailure`` with its exit code.
public struct CorkSession: Sendable {
    /// Where to connect.
    public var target: ConnectionTarget
    /// Where known hosts are kept; nil keeps none.
    public var directory: ConfigDirectory?
    /// Whether the client gives up quickly when the server cannot be reached (one-shot commands) or keeps
    /// reconnecting for ever once it has connected (`cork watch`).
    public var oneShot = true
    /// How long to wait for the connection and the board, and for each op's outcome.
    public var timeout: Duration = .seconds(20)
    /// The journal that keeps unconfirmed ops across runs (the full-screen client's), or nil.
    public var journal: URL?

    /// A session for `target`.
    public init(target: ConnectionTarget, directory: ConfigDirectory?) {
        self.target = target
        self.directory = directory
    }

    /// The client configuration: the URL's address, token and pinned fingerprint, the board (or none).
    public func configuration(subscribe: Bool) throws(CorkFailure) -> ClientConfiguration {
        var configuration: ClientConfiguration
        do {
            configuration = try ClientConfiguration(invite: target.url)
        } catch {
            throw CorkFailure(error)
        }
        configuration.board = subscribe ? target.board : nil
        // A one-shot command is not a person on the board: it follows the board without presence, so it never shows
        // up as "X joined" / "X left" in anyone's feed (Protocol.md, "subscribe").
        configuration.announcesPresence = !oneShot
        configuration.journal = journal
        configuration.connectTimeout = .seconds(10)
        // One-shot commands fail fast; long-running ones (watch) fail fast only until the first welcome, then ride
        // out outages for ever.
        configuration.reconnect = oneShot
            ? ReconnectPolicy(initial: .milliseconds(200), maximum: .seconds(1), maxRounds: 2)
            : ReconnectPolicy(maxRoundsUntilConnected: 2)
        return configuration
    }

    /// Refuses a URL whose fingerprint differs from the one remembered for its address (exit 4).
    public func checkKnownHost() throws(CorkFailure) {
        guard let directory else { return }
        let known = try KnownHosts.load(from: directory)
        if case .mismatch(let fp) = known.check(target.url) {
            throw CorkFailure(
                .cannotConnect, KnownHosts.mismatchMessage(target.url, known: fp, file: directory.knownHostsFile))
        }
    }

    /// Remembers the URL's fingerprint for its address after a successful connection (trust on first use).
    public func rememberHost() throws(CorkFailure) {
        guard let directory else { return }
        var known = try KnownHosts.load(from: directory)
        if known.remember(target.url) { try known.save(in: directory) }
    }

    /// Connects, waits until the board is loaded, and runs `body` with the client and the board.
    public func withBoard<T: Sendable>(
        _ body: (BoardClient, Board) async throws -> T
    ) async throws(CorkFailure) -> T {
        try checkKnownHost()
        let configuration = try configuration(subscribe: true)
        return try await run {
            try await withClient(configuration) { client in
                // Long-running sessions allow for a membership still on its way (a fresh invite); one-shots fail fast.
                let board: Board
                do {
                    board = try await firstBoard(client)
                } catch {
                    throw await Self.beforeWelcome(error, client: client)
                }
                try rememberHost()
                return try await body(client, board)
            }
        }
    }

    /// The board, once loaded. A one-shot command waits `timeout`; a long-running one (watch) waits for as long as
    /// the client keeps trying (a server that asked to try again later, as during a database outage, keeps it
    /// trying), and gives up with it.
    func firstBoard(_ client: BoardClient) async throws(ClientError) -> Board {
        while true {
            do {
                return try await client.ready(timeout: timeout, membershipGrace: oneShot ? .zero : .seconds(10))
            } catch {
                guard !oneShot, error.code == .timeout else { throw error }
                if case .stopped = await client.state { throw error }
            }
        }
    }

    /// Connects without a board, waits for `welcome`, and runs `body` with the client and the welcome.
    public func withConnection<T: Sendable>(
        _ body: (BoardClient, Welcome) async throws -> T
    ) async throws(CorkFailure) -> T {
        try checkKnownHost()
        let configuration = try configuration(subscribe: false)
        return try await run {
            try await withClient(configuration) { client in
                let welcome: Welcome
                do {
                    welcome = try await client.connected(timeout: timeout)
                } catch {
                    throw await Self.beforeWelcome(error, client: client)
                }
                try rememberHost()
                return try await body(client, welcome)
            }
        }
    }

    /// Sends `op`, waits for its outcome and returns its seq and whether it was a no-op; a reject is exit 3, an op
    /// whose answer never came exit 6. An op the reducer refuses for its own fields is refused before it is sent.
    public func perform(_ op: Op, on client: BoardClient) async throws(CorkFailure) -> (seq: UInt64, noop: Bool) {
        if let board = await client.board { try Self.dryRun([op], on: board, as: await client.user) }
        let outcome: OpOutcome
        do {
            outcome = try await client.perform(op, timeout: timeout)
        } catch {
            throw CorkFailure(afterSending: error)
        }
        switch outcome {
        case .applied(let seq): return (seq, false)
        case .noop(let seq): return (seq, true)
        case .rejected(let reject):
            // A label this command creates (`cork add --label new`, `cork label … +new`) that a job running at the
            // same time created first: it is there, as the command wanted, and the card's own op goes on.
            // Its change may still be on its way to this client: looked for a little while.
            if reject.code == .rejected(.duplicateID), case .createLabel(let label, let name, _) = op {
                for _ in 0..<100 {
                    if let board = await client.board,
                        board.labels.contains(where: { $0.id == label && $0.name.lowercased() == name.lowercased() })
                    {
                        return (board.seq, true)
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            throw CorkFailure(reject: reject)
        }
    }

    /// Refuses `ops`, before anything is sent, when the reducer refuses one of them as invalid or too large on the
    /// board as this client has it (applied in order, so a `card.add` sees the labels created before it): a title
    /// with a line break, a comment past `comment_max_bytes`. The server would refuse it the same way, but a
    /// command's earlier ops (the labels of a `cork add`) would already be applied, and a text past the wire's
    /// `string_max` or `line_max` would get `bad_request` or a closed connection instead of `too_large`. Other
    /// refusals depend on the board's state, which the server judges.
    public static func dryRun(_ ops: [Op], on board: Board, as user: UserID?) throws(CorkFailure) {
        guard let user, let role = board.members[user]?.role else { return }
        var scratch = board
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        for op in ops {
            let context = ApplyContext(actor: user, role: role, now: now, seq: scratch.seq + 1)
            switch scratch.apply(op, context: context) {
            case .success:
                continue
            case .failure(let rejection) where rejection.code == .invalid || rejection.code == .tooLarge:
                throw CorkFailure(reject: OpRejection(board: board.id, mut: 0, rejection: rejection))
            case .failure:
                return
            }
        }
    }

    /// A wait for the welcome or the board that failed before any welcome: `server_full` is marked to be tried again
    /// (`run`), and running out of time is "cannot connect" (exit 4), with what the last attempt hit.
    static func beforeWelcome(_ error: any Error, client: BoardClient) async -> any Error {
        guard let clientError = error as? ClientError, await client.welcome == nil else { return error }
        var lastAttempt: String?
        if case .reconnecting(_, let last) = await client.state, !last.isEmpty { lastAttempt = last }
        return beforeWelcome(clientError, lastAttempt: lastAttempt) ?? error
    }

    /// What an error before `welcome` means for a command (exit 4, tried again when the server asked), or nil when
    /// it maps as any error does.
    public static func beforeWelcome(_ clientError: ClientError, lastAttempt: String?) -> CorkFailure? {
        switch clientError.server?.code {
        case .serverFull?, .storageBusy?:
            var failure = CorkFailure(.cannotConnect, clientError.message)
            failure.triedAgainBeforeWelcome = true
            return failure
        default:
            break
        }
        guard clientError.code == .timeout else { return nil }
        let reason = "no welcome from the server in time" + (lastAttempt.map { " (last attempt: \($0))" } ?? "")
        var failure = CorkFailure(.cannotConnect, "\(reason): is corkd running there, and is that its client port?")
        failure.unreachable = true
        return failure
    }

    /// Runs `body` (a whole connection); a server with no room for this user's session yet (`server_full`, e.g.
    /// many jobs of one bot at once) is tried again after a short random pause until `timeout` has passed.
    private func run<T>(_ body: () async throws -> T) async throws(CorkFailure) -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try await body()
            } catch {
                let failure = CorkFailure.from(error)
                guard failure.triedAgainBeforeWelcome, ContinuousClock.now < deadline else { throw failure }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 200...1_000)))
            }
        }
    }
}
