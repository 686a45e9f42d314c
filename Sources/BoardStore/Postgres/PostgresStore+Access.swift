import BoardCore
import Logging
import PostgresNIO

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
    /// the commit is durable. A connection lost during COMMIT leaves the outcome unknown: that is reported as `.io`.
    ///
    /// `leaseTimeout` replaces the configuration's wait for a connection (the schema migration at start waits longer:
    /// a node starting beside a busy database should wait for it, not give up).
    func write<T: Sendable>(
        _ what: String, leaseTimeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        let logger = self.logger
        do {
            return try await pooled(what, leaseTimeout: leaseTimeout) { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch {
            throw StoreError(postgres: error, context: what)
        }
    }

    /// Runs `body` on a pooled connection, waiting at most `configuration.leaseTimeout` for one: with the database
    /// unreachable, postgres-nio's pool keeps a request waiting while it retries (a minute before it gives up), and a
    /// node must rather refuse at once and say why (`.io`, naming the database). Once `body` has started it is never
    /// cut short.
    private func pooled<T: Sendable>(
        _ what: String, leaseTimeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let client = self.client
        let timeout = leaseTimeout ?? configuration.leaseTimeout
        let deadline = LeaseDeadline()
        let unreachable = StoreError(
            .io, "\(what): cannot reach the database \(location) (no connection within \(timeout))")
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    guard await deadline.lease() else { throw unreachable }
                    return try await body(connection)
                }
            }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return nil  // the body finished first
                }
                if await deadline.expire() { throw unreachable }
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let value = result { return value }
            }
            throw unreachable
        }
    }
}

/// Which came first for one pooled request: its connection (`lease`) or its deadline (`expire`); the loser learns it
/// lost, so a body that started is never cancelled by the deadline.
private actor LeaseDeadline {
    private var leased: Bool?

    /// The connection came: true unless the deadline passed first.
    func lease() -> Bool {
        if leased == nil { leased = true }
        return leased == true
    }

    /// The deadline passed: true unless the connection came first.
    func expire() -> Bool {
        if leased == nil { leased = false }
        return leased == false
    }
}

extension StoreError {
    /// Maps what postgres-nio threw to the store's codes: a unique violation is `.duplicate`; serialization failures,
    /// deadlocks and lock timeouts `.busy` (retryable); a full disk `.full`; a lost or refused connection `.io`;
    /// a `StoreError` thrown inside a transaction passes through.
    init(postgres error: any Error, context: String) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? PSQLError else {
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
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            .sslUnsupported, .failedToAddSSLHandler, .authMechanismRequiresPassword, .unsupportedAuthMechanism,
            .saslError:
            self = StoreError(.io, "\(context): the database connection failed (\(error.code))")
        default:
            self = StoreError(.internal, "\(context): \(error.code)")
        }
    }
}
