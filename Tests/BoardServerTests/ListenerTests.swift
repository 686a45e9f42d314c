import BoardTesting
import BoardTransport
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

@testable import BoardServer

/// The accept loop under faults: one connection's failed set-up never ends it, and a listener that dies makes the
/// server stop at once with an error instead of lingering without accepting.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ListenerTests {
    struct Injected: Error, CustomStringConvertible {
        var description: String { "injected listener fault" }
    }

    /// Where a test server listens and the certificate to pin.
    struct Address: Sendable {
        var port: Int
        var fingerprint: Fingerprint
        func connect() async throws -> WireProbe { try await WireProbe.connect(port: port, fingerprint: fingerprint) }
    }

    /// A server on a fresh data directory with `hooks`, run in a task; `body` gets its port and listening channel.
    static func withServer(
        hooks: BoardServer.Hooks = .init(),
        _ body: @Sendable (_ server: BoardServer, _ probe: Address, _ listener: any Channel, _ run: Task<Void, any Error>) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corkd-listener-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.adminPollInterval = .milliseconds(50)
        var logger = Logger(label: "corkd-test")
        logger.logLevel = .critical
        let setup = try await ServerSetup.prepare(configuration, logger: logger)
        let (listeners, found) = AsyncStream.makeStream(of: (any Channel).self)
        var hooks = hooks
        hooks.listener = { found.yield($0) }
        var server = BoardServer(
            configuration: configuration, store: setup.store, features: setup.features, tls: setup.tls, logger: logger)
        server.hooks = hooks
        let running = server
        let run = Task { try await running.run() }
        defer { run.cancel() }
        var iterator = listeners.makeAsyncIterator()
        guard let listener = await iterator.next(), let port = listener.localAddress?.port else {
            throw TestFailure("the server did not listen")
        }
        try await body(running, Address(port: port, fingerprint: setup.fingerprint), listener, run)
        try? await setup.store.close()
    }

    @Test func aListenerThatDiesStopsTheServerWithANetworkErrorAtOnce() async throws {
        try await Self.withServer { _, _, listener, run in
            // What NIO does when accepting fails for good: the error reaches the end of the listener's pipeline.
            listener.pipeline.fireErrorCaught(Injected())
            // The admin poller must not keep the server alive, accepting nothing, until a second signal.
            let outcome = try await Self.result(of: run, within: .seconds(10))
            switch outcome {
            case .success:
                Issue.record("run() returned normally although nobody asked the server to stop")
            case .failure(let error as ServerError):
                #expect(error.code == .network)
                #expect(error.message.contains("injected listener fault"), "\(error)")
            case .failure(let error):
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func failedConnectionSetUpsAreCountedAndTheServerKeepsServing() async throws {
        let failing = Countdown(2)
        var hooks = BoardServer.Hooks()
        hooks.prepareChild = { _ in if failing.take() { throw Injected() } }
        try await Self.withServer(hooks: hooks) { server, address, _, _ in
            for _ in 1...2 {
                await #expect(throws: (any Error).self) { _ = try await address.connect() }
            }
            #expect(server.counters.connectionSetupFailures == 2)
            let probe = try await address.connect()
            try await probe.send(#"{"type":"ping","req":1}"#)
            let pong = try await probe.expect(type: "pong")
            #expect(pong["req"] as? Int == 1)
            await probe.close()
        }
    }

    /// The task's result, or a failure when it has none within `limit` (the task is cancelled then).
    static func result(of task: Task<Void, any Error>, within limit: Duration) async throws -> Result<Void, any Error> {
        let first = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask { await task.result }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            // On a timeout, cancelling the server lets the other child (waiting for its result) finish.
            if first == nil { task.cancel() }
            group.cancelAll()
            return first
        }
        guard let first else { throw TestFailure("the server still ran \(limit) after its listener died") }
        return first
    }
}

/// Says yes the first `count` times it is asked, from any thread.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    init(_ count: Int) { remaining = Atomic(count) }
    func take() -> Bool { remaining.subtract(1, ordering: .relaxed).oldValue > 0 }
}
