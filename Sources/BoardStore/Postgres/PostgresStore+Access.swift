import BoardCore
import BoardTransport
import Logging
import PostgresNIO
import _ConnectionPoolModule

extension PostgresStore {
    /// Runs `body` on a pooled connection outside a transaction (reads; each statement is atomic on its own).
    func read<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await pooled(what) { connection in try await body(connection) }
        } catch {
            throw StoreError(postgres: error, context: what)
        }
    }

    /// Runs `body` in one transaction (BEGIN … COMMIT); any error rolls it back and nothing is written. Returns once
    /// the commit is durable. A connection lost during COMMIT leaves the outcome unknown: that is reported as `.io`
    /// with `StoreError.outcomeUnknown` set (the caller reads the data back to learn whether it was written).
    ///
    /// `leaseTimeout` replaces the configuration's wait for a connection (the schema migration at start waits longer:
    /// a node starting beside a busy database should wait for it, not give up).
    func write<T: Sendable>(
        _ what: String, leaseTimeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        let logger = self.logger
        do {
            return try await pooled(what, leaseTimeout: leaseTimeout, lostOutcome: .unknown) { connection in
                try await connection.query("BEGIN", logger: logger)
                let result: T
                do {
                    result = try await body(connection)
                } catch {
                    // On a closed connection there is nothing to roll back (the server did), and a query written to
                    // it would never be answered (postgres-nio drops it and never fails its promise).
                    if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
                    throw error
                }
                do {
                    try await connection.query("COMMIT", logger: logger)
                } catch {
                    // An error the server answered with ended the transaction unwritten; a lost connection did not
                    // tell whether the server committed before it went.
                    let failure = StoreError(postgres: error, context: what)
                    throw failure.code == .io ? failure.withOutcomeUnknown() : failure
                }
                return result
            }
        } catch {
            throw StoreError(postgres: error, context: what)
        }
    }

    /// Runs `body` on a pooled connection, waiting at most `configuration.leaseTimeout` for one: with the database
    /// unreachable, postgres-nio's pool keeps a request waiting while it retries (a minute before it gives up), and a
    /// node must rather refuse at once and say why (`.io`, naming the database). Once `body` has started it is never
    /// cut short.
    ///
    /// One exception: when the connection closes under `body` (the database restarted, an operator ended the
    /// backend) and `body` has not returned `lostGrace` later, this throws `.io` ("lost the database connection";
    /// `outcomeUnknown` for a write) and leaves `body` behind. postgres-nio never answers a query written to a
    /// connection that has closed (its promise is dropped, not failed), so such a `body` would wait for ever, and the
    /// board whose commit it was with it (its node stuck behind the head after a PostgreSQL restart).
    private func pooled<T: Sendable>(
        _ what: String, leaseTimeout: Duration? = nil, lostOutcome: LostOutcome = .nothingWritten,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let client = self.client
        let timeout = leaseTimeout ?? configuration.leaseTimeout
        let deadline = LeaseDeadline()
        let unreachable = StoreError(
            .io, "\(what): cannot reach the database \(location) (no connection within \(timeout))")
        var lost = StoreError(.io, "\(what): lost the connection to the database \(location) while using it")
        if lostOutcome == .unknown { lost = lost.withOutcomeUnknown() }
        let grace = Self.lostGrace
        let first = FirstAnswer<T>()
        // The request runs on a task of its own, so that a body stuck on a dropped query can be left behind (the
        // lease deadline and the lost connection answer `first` instead); the caller's cancellation reaches it.
        let work = Task {
            do {
                let value = try await client.withConnection { connection in
                    guard await deadline.lease(connection) else { throw unreachable }
                    return try await body(connection)
                }
                await first.answer(.success(value))
            } catch {
                await first.answer(.failure(error))
            }
        }
        let watchdog = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }  // answered first
            guard let connection = await deadline.expire() else {
                work.cancel()  // its lease request goes
                await first.answer(.failure(unreachable))
                return
            }
            // Leased and still running: watch its connection.
            while !connection.isClosed {
                guard (try? await Task.sleep(for: .milliseconds(500))) != nil else { return }
            }
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            await first.answer(.failure(lost))
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await first.value()
        } onCancel: {
            work.cancel()
        }
    }
}

extension PostgresStore {
    /// What a body cut short by a lost connection (`pooled`) may have written.
    enum LostOutcome {
        /// Nothing: a read, or statements the server rolls back when the connection goes.
        case nothingWritten
        /// A transaction whose `COMMIT` may have been sent.
        case unknown
    }

    /// How long a body may go on after its connection closed before `pooled` stops waiting for it. Queries in flight
    /// when it closed fail at once; only one written after the close never returns.
    static let lostGrace: Duration = .seconds(2)
}

/// The first of several answers to one question (later ones are dropped), for whoever waits for it.
private actor FirstAnswer<T: Sendable> {
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<T, any Error>?

    func answer(_ answer: Result<T, any Error>) {
        guard result == nil else { return }
        result = answer
        waiter?.resume(with: answer)
        waiter = nil
    }

    func value() async throws -> T {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiter = $0 }
    }
}

/// Which came first for one pooled request: its connection (`lease`) or its deadline (`expire`); the loser learns it
/// lost, so a body that started is never cancelled by the deadline.
private actor LeaseDeadline {
    private var leased: Bool?
    private var connection: PostgresConnection?

    /// The connection came: true unless the deadline passed first.
    func lease(_ connection: PostgresConnection) -> Bool {
        if leased == nil {
            leased = true
            self.connection = connection
        }
        return leased == true
    }

    /// The deadline passed: nil when it came first (the request has no connection), else the connection the body
    /// runs on.
    func expire() -> PostgresConnection? {
        if leased == nil { leased = false }
        return connection
    }
}

extension StoreError {
    /// Maps what postgres-nio threw to the store's codes: a unique violation is `.duplicate`; serialization failures,
    /// deadlocks and lock timeouts `.busy` (retryable); a full disk `.full`; a lost or refused connection, or a pool
    /// that can hand out none, `.io`; a `StoreError` thrown inside a transaction passes through.
    init(postgres error: any Error, context: String) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? PSQLError else {
            // postgres-nio's pool answers with an error of its own when it can hand out no connection: the database
            // is down or unreachable, not a broken invariant.
            if let pool = error as? ConnectionPoolError {
                self = StoreError(.io, "\(context): cannot get a connection to the database (\(Self.words(pool)))")
                return
            }
            self = StoreError(.internal, "\(context): \(error)")
            return
        }
        if error.code == .server, let state = error.serverInfo?[.sqlState] {
            let message = "\(context): \(error.serverInfo?[.message] ?? state) (SQLSTATE \(state))"
            switch state {
            case "23505": self = StoreError(.duplicate, message)
            case "40001", "40P01", "55P03", "57014": self = StoreError(.busy, message)
            case "53100": self = StoreError(.full, message)
            case _ where state.hasPrefix("08") || state.hasPrefix("57") || state.hasPrefix("53") || state.hasPrefix("28"):
                self = StoreError(.io, message)
            case _ where state.hasPrefix("XX"): self = StoreError(.corrupt, message)
            default: self = StoreError(.internal, message)
            }
            return
        }
        switch error.code {
        case .connectionError:
            self = StoreError(.io, "\(context): \(ConnectionWords.dialFailure(error.underlying ?? error, listener: "PostgreSQL"))")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            .sslUnsupported, .failedToAddSSLHandler, .authMechanismRequiresPassword, .unsupportedAuthMechanism,
            .saslError:
            self = StoreError(.io, "\(context): the database connection failed (\(error.code))")
        default:
            self = StoreError(.internal, "\(context): \(error.code)")
        }
    }
}

extension StoreError {
    /// Why the pool handed out no connection, in an operator's words (the type's own description is its Swift name).
    static func words(_ error: ConnectionPoolError) -> String {
        switch error {
        case .connectionCreationCircuitBreakerTripped:
            "new connections to it keep failing; the pool waits a while before it tries again"
        case .requestCancelled: "the request was cancelled while it waited for one"
        case .poolShutdown: "the connection pool is closed: corkd is stopping"
        default: "\(error)"
        }
    }
}
