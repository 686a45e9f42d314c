import BoardCore
import BoardServer
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOConcurrencyHelpers
import ServiceLifecycle

/// A live server for one test: real TLS on 127.0.0.1 port 0, a fresh data directory, torn down afterwards.
public struct TestServer: Sendable {
    public var port: Int
    public var fingerprint: Fingerprint
    public var ownerToken: String
    public var store: any AdminStore
    public var directory: URL

    /// A probe connected and authenticated as the owner (or with `token`).
    public func connect(
        token: String? = nil, clientID: String? = nil, hello: Bool = true, timeout: TimeAmount = .seconds(60)
    ) async throws -> WireProbe {
        let probe = try await WireProbe.connect(port: port, fingerprint: fingerprint, timeout: timeout)
        if hello {
            let id = clientID.map { #","client_id":"\#($0)""# } ?? ""
            try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(token ?? ownerToken)"\#(id)}"#)
            _ = try await probe.expect(type: "welcome")
        }
        return probe
    }

    /// A new user with a token and a role on `main` (applied through the admin queue, as `corkd invite` does).
    public func invite(_ user: UserID, role: Role = .editor, board: BoardID = "main") async throws -> String {
        _ = try await store.ensureUser(user, displayName: "")
        let token = try await store.issueToken(for: user, expiresAt: nil, now: WallClock().now())
        _ = try await store.enqueue(.addMember(board: board, user: user, role: role), now: WallClock().now())
        return token
    }
}

/// Runs `body` against a fresh server (on `store`: by default SQLite in a fresh data directory); the server and
/// its data directory are gone when it returns, and its store is closed.
public func withTestServer<T: Sendable>(
    store location: StoreLocation = .dataDirectory, clock: any ServerClock = WallClock(),
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: @Sendable (TestServer) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corkd-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.dataDirectory = directory
    configuration.adminPollInterval = .milliseconds(50)
    // The suite runs a thousand tests at once on the cooperative pool (two threads on CI): a session task may wait
    // seconds for a thread while the event loop's real-time timers run on. The 5 s handshake and hello deadlines
    // then closed connections of tests that are not about them (a run where a four-line pre-welcome test took
    // 50 s). Here they are a minute; the tests of those deadlines set their own.
    configuration.limits.handshakeTimeoutMs = 60_000
    configuration.limits.authTimeoutMs = 60_000
    configure(&configuration)
    // Kept in memory, not printed: a server that does not stop says what it logged last.
    let recent = RecentLog()
    let logger = recent.logger(label: "corkd-test", level: .info)
    let setup = try await ServerSetup.prepare(configuration, store: location, logger: logger)
    let (addresses, addressContinuation) = AsyncStream.makeStream(of: Int.self)
    let server = BoardServer(
        configuration: configuration, store: setup.store, features: setup.features, tls: setup.tls, clock: clock,
        logger: logger,
        onListening: { address in addressContinuation.yield(address.port ?? 0) })
    let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
    // The server runs in a task of its own, not a child task: a server that never stops after its graceful
    // shutdown then fails this test with a message, instead of holding the whole run for ever (a child task would
    // have to be awaited).
    let running = Task { try await group.run() }
    Task {
        _ = await running.result
        addressContinuation.finish()
    }
    var iterator = addresses.makeAsyncIterator()
    guard let port = await iterator.next() else {
        await setup.release()
        if case .failure(let error) = await running.result { throw error }
        throw TestFailure("the server did not start")
    }
    let test = TestServer(
        port: port, fingerprint: setup.fingerprint, ownerToken: setup.ownerToken ?? "", store: setup.store,
        directory: directory)
    let result: Result<T, any Error>
    do { result = .success(try await body(test)) } catch { result = .failure(error) }
    await group.triggerGracefulShutdown()
    // Bounded generously (a busy machine); the run's own watchdog catches a server that never stops.
    guard await ended(running, within: .seconds(120)) else {
        running.cancel()
        throw TestFailure(
            "the test server did not stop within 120 s of its graceful shutdown (test: \(result)); its last log lines:\n"
                + recent.text)
    }
    await setup.release()
    let value = try result.get()
    try await running.value
    return value
}

/// Whether `task` ends within `timeout` (it is not cancelled either way).
private func ended(_ task: Task<Void, any Error>, within timeout: Duration) async -> Bool {
    let answer = NIOLockedValueBox<CheckedContinuation<Bool, Never>?>(nil)
    return await withCheckedContinuation { continuation in
        answer.withLockedValue { $0 = continuation }
        Task {
            _ = await task.result
            answer.withLockedValue { $0.take() }?.resume(returning: true)
        }
        Task {
            try? await Task.sleep(for: timeout)
            answer.withLockedValue { $0.take() }?.resume(returning: false)
        }
    }
}

/// A failure inside test support.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A clock that never moves: rate limits never refill, timestamps never change.
public struct FrozenClock: ServerClock {
    public var instant = Timestamp(milliseconds: 1_795_000_000_000)
    /// A clock frozen at `instant`.
    public init(instant: Timestamp = Timestamp(milliseconds: 1_795_000_000_000)) { self.instant = instant }
    public func now() -> Timestamp { instant }
    public func monotonicMs() -> Int64 { 5_000_000 }
    /// Returns at once: no time passes on a frozen clock.
    public func pause(milliseconds: Int64) async {}
}

/// A clock the test moves by hand: `advance(by:)` moves wall and monotonic time together (time passes);
/// `jumpWall(by:)` moves only the wall clock (an operator or NTP sets it), as RELIABILITY.md M4 does.
/// The monotonic reading starts far from the wall reading, so code that mixes the two is caught.
public final class ManualClock: ServerClock {
    private let box = NIOLockedValueBox<(wall: Int64, monotonic: Int64)>((1_795_000_000_000, 5_000_000))
    /// A clock at a fixed instant until the test advances it.
    public init() {}
    public func now() -> Timestamp { Timestamp(milliseconds: box.withLockedValue { $0.wall }) }
    public func monotonicMs() -> Int64 { box.withLockedValue { $0.monotonic } }
    /// Time passes: both readings move on by `ms`.
    public func advance(by ms: Int64) {
        box.withLockedValue {
            $0.wall += ms
            $0.monotonic += ms
        }
    }
    /// The wall clock is set `ms` forward (negative: back); monotonic time does not move.
    public func jumpWall(by ms: Int64) { box.withLockedValue { $0.wall += ms } }
    /// Returns at once: time passes only when the test advances it.
    public func pause(milliseconds: Int64) async {}
}

/// A clock on which every reading lets `stepMs` pass (wall and monotonic time together): how much time passes on
/// the server depends on how much work it does, not on how fast the machine does it. A flood of N lines then spans
/// at least N readings' worth of time on a fast machine and on a loaded one alike.
public final class SteppingClock: ServerClock {
    private let box = NIOLockedValueBox<(wall: Int64, monotonic: Int64)>((1_795_000_000_000, 5_000_000))
    /// Milliseconds that pass with each reading.
    public let stepMs: Int64
    /// A clock that moves `stepMs` per reading.
    public init(stepMs: Int64 = 1) { self.stepMs = stepMs }
    public func now() -> Timestamp {
        Timestamp(milliseconds: box.withLockedValue { $0.wall += stepMs; $0.monotonic += stepMs; return $0.wall })
    }
    public func monotonicMs() -> Int64 {
        box.withLockedValue { $0.wall += stepMs; $0.monotonic += stepMs; return $0.monotonic }
    }
    /// Returns at once: time passes only as the clock is read.
    public func pause(milliseconds: Int64) async {}
}
