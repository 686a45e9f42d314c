import Logging
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// A session-level advisory lock on its own connection: held shared by every node that serves the database, taken
/// exclusive by an admin command that finds no node serving (then it applies its commands itself, as it does with
/// the data directory's `flock` on one node). The lock lives as long as the connection: a node that dies lets go.
///
/// A node's shared hold outlives its connection: when the connection is lost (a database restart, an operator's
/// `pg_terminate_backend`), a keeper task connects again every `retryDelay` and takes the lock shared again, so an
/// admin command run after the database came back hands its work to the node instead of applying it beside it.
public final class PostgresServingLock: Sendable {
    private enum Holder: Sendable {
        /// An exclusive hold (an admin command): it ends with its connection.
        case connection(PostgresConnection)
        /// A node's shared hold, kept (and retaken) by this task until `release()`.
        case keeper(Task<Void, Never>)
    }

    private let holder: Holder

    private init(_ holder: Holder) {
        self.holder = holder
    }

    /// Lets go of the lock (unlocks and closes its connection; a node's keeper stops retaking it). Returns once the
    /// database has let go: closing alone leaves the lock held until the backend notices, so a second admin command
    /// right after one (or `migrate-store` run twice) was told that a node serves.
    public func release() async {
        switch holder {
        case .connection(let connection):
            await PostgresStore.unlockAndClose(connection)
        case .keeper(let task):
            task.cancel()
            await task.value
        }
    }
}

extension PostgresServingLock {
    /// The advisory lock's key ("corkserv").
    static let key: Int64 = 0x636F_726B_7365_7276

    /// Holds the serving lock shared, for a node that serves; waits while an admin command holds it exclusive.
    /// The first hold is taken before this returns (a database that cannot be reached fails the start); after that,
    /// a lost connection is replaced and the lock taken again every `retryDelay`, until `release()`.
    public static func holdShared(
        at location: PostgresLocation, retryDelay: Duration = .milliseconds(500), logger: Logger
    ) async throws(StoreError) -> PostgresServingLock {
        let first = try await takeShared(at: location, logger: logger)
        // The keeper's lifetime is the lock's, which is not a scope: taken at start, let go by `release()`.
        let keeper = Task {
            var connection = first
            while true {
                await held(connection)
                if Task.isCancelled { return }
                logger.warning("lost the serving lock's connection; taking the lock again", metadata: ["store": "\(location)"])
                while true {
                    try? await Task.sleep(for: retryDelay)
                    if Task.isCancelled { return }
                    do {
                        connection = try await takeShared(at: location, logger: logger)
                        logger.info("serving lock taken again", metadata: ["store": "\(location)"])
                        break
                    } catch {
                        logger.debug("cannot take the serving lock yet", metadata: ["error": "\(error)"])
                    }
                }
            }
        }
        return PostgresServingLock(.keeper(keeper))
    }

    /// A new connection holding the lock shared.
    private static func takeShared(at location: PostgresLocation, logger: Logger) async throws(StoreError) -> PostgresConnection {
        let connection = try await PostgresStore.dedicatedConnection(to: location, "serving lock", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_lock_shared(\(key))", logger: logger)
        } catch {
            try? await connection.close()
            throw StoreError(postgres: error, context: "serving lock")
        }
        return connection
    }

    /// Returns once `connection` has closed, or once the task is cancelled (then it closes the connection first).
    private static func held(_ connection: PostgresConnection) async {
        await withTaskCancellationHandler {
            _ = try? await connection.closeFuture.get()
        } onCancel: {
            // Not a child: the cancelled task cannot run the unlock itself.
            Task { await PostgresStore.unlockAndClose(connection) }
        }
        // Cancelled while the close was under way: wait for it, so `release()` returns with the lock let go.
        _ = try? await connection.closeFuture.get()
    }

    /// Takes the serving lock exclusive when no node holds it; nil when a node serves (it will apply the commands).
    public static func tryExclusive(at location: PostgresLocation, logger: Logger) async throws(StoreError) -> PostgresServingLock? {
        let connection = try await PostgresStore.dedicatedConnection(to: location, "connect", logger: logger)
        do {
            var taken = false
            for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                .decode(Bool.self)
            {
                taken = value
            }
            guard taken else {
                try? await connection.close()
                return nil
            }
            return PostgresServingLock(.connection(connection))
        } catch {
            try? await connection.close()
            throw StoreError(postgres: error, context: "serving lock")
        }
    }
}

extension PostgresStore {
    /// Holds the serving lock shared, for a node that serves; waits while an admin command holds it exclusive. A
    /// lost connection is replaced and the lock taken again every `retryDelay` until `release()`.
    public func holdServingLock(retryDelay: Duration = .milliseconds(500)) async throws(StoreError) -> PostgresServingLock {
        try await PostgresServingLock.holdShared(at: location, retryDelay: retryDelay, logger: logger)
    }

    /// Takes the serving lock exclusive when no node holds it; nil when a node serves (it will apply the commands).
    public func tryExclusiveServingLock() async throws(StoreError) -> PostgresServingLock? {
        try await PostgresServingLock.tryExclusive(at: location, logger: logger)
    }

    /// Lets go of every advisory lock `connection` holds, then closes it. The unlock is what the next
    /// `pg_try_advisory_lock` sees at once; a close alone is noticed by the backend a moment later. An unlock that
    /// gets no answer within 2 s (a database gone away) is ended by the close, and the close is waited for 2 s at
    /// most: this returns within about 4 s whatever the connection does.
    ///
    /// The unlock and the close run in tasks of their own, not children of the caller's: the caller is often a
    /// server's shutdown, which is cancelled (the locks must still be let go of, so the unlock must not see that
    /// cancellation), and a child whose query is never answered would hold the caller until it is. A two-node test's
    /// server once took more than 120 s to stop, its last line "releasing the lease". Each task ends when the
    /// connection is closed.
    static func unlockAndClose(_ connection: PostgresConnection) async {
        let logger = {
            var logger = Logger(label: "corkd.store.lock")
            logger.logLevel = .critical
            return logger
        }()
        _ = await finishes(within: .seconds(2)) {
            do {
                // Read to the end, so that the connection is idle again when it is closed.
                for try await _ in try await connection.query("SELECT pg_advisory_unlock_all()", logger: logger) {}
            } catch {}
        }
        _ = await finishes(within: .seconds(2)) { try? await connection.close() }
    }

    /// Runs `body` in a task of its own and returns when it has finished (true) or when `timeout` has passed
    /// (false), whichever comes first; the caller's cancellation reaches neither. A `body` still running after the
    /// timeout goes on on its own; a body that finishes first ends the timer.
    static func finishes(within timeout: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        let answer = FirstAnswer()
        return await withCheckedContinuation { continuation in
            answer.wait(continuation)
            let timer = Task {
                try? await Task.sleep(for: timeout)
                answer.resume(false)
            }
            Task {
                await body()
                answer.resume(true)
                timer.cancel()
            }
        }
    }

    /// A connection of its own, outside the pool (session state such as advisory locks and LISTEN stays with it).
    func dedicatedConnection(_ what: String) async throws(StoreError) -> PostgresConnection {
        try await Self.dedicatedConnection(to: location, what, logger: logger)
    }

    /// A connection of its own to `location`, outside any pool.
    static func dedicatedConnection(to location: PostgresLocation, _ what: String, logger: Logger) async throws(StoreError)
        -> PostgresConnection
    {
        do {
            return try await connect(to: location, logger: logger)
        } catch {
            throw StoreError(postgres: error, context: what)
        }
    }

    /// A connection of its own to `location`, with postgres-nio's error as it came.
    static func connect(to location: PostgresLocation, logger: Logger) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database,
            tls: location.tls == .require ? .require(try Self.tlsContext()) : .disable)
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: driverLogger(logger))
    }

    /// The client TLS context for `sslmode=require` (the system's trust roots).
    static func tlsContext() throws(StoreError) -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: .makeClientConfiguration())
        } catch {
            throw StoreError(.io, "cannot set up TLS for the database: \(error)")
        }
    }
}

/// A continuation resumed by the first of several tasks to answer (`PostgresStore.finishes`).
private final class FirstAnswer: Sendable {
    private let waiting = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func wait(_ continuation: CheckedContinuation<Bool, Never>) { waiting.withLock { $0 = continuation } }

    func resume(_ value: Bool) { waiting.withLock { $0.take() }?.resume(returning: value) }
}
