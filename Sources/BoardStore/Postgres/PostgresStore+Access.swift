import BoardCore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Runs `body` on a pooled connection outside a transaction (reads; each statement is atomic on its own).
    func read<T: Sendable>(
        _ what: String, _ body: (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw StoreError(postgres: error, context: what)
        }
    }

    /// Runs `body` in one transaction (BEGIN … COMMIT); any error rolls it back and nothing is written. Returns once
    /// the commit is durable. A connection lost during COMMIT leaves the outcome unknown: that is reported as `.io`.
    func write<T: Sendable>(
        _ what: String, _ body: (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        let logger = self.logger
        do {
            return try await client.withConnection { connection in
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
