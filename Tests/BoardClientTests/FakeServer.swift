import BoardClient
import BoardCore
import BoardWire
import Foundation
import NIOCore
import NIOEmbedded
import Testing

/// A scripted server for the client: each connection the client opens is an `NIOAsyncTestingChannel` the test reads
/// client lines from and writes server lines into (STYLE.md tests, tier 3). No sockets, no TLS.
final class FakeServer: Sendable {
    let connections: AsyncStream<NIOAsyncTestingChannel>
    private let sink: AsyncStream<NIOAsyncTestingChannel>.Continuation
    let coder = LineCoder()

    init() {
        (connections, sink) = AsyncStream.makeStream(of: NIOAsyncTestingChannel.self)
    }

    /// The connector to put in the client's configuration.
    var connector: ClientConfiguration.Connector {
        { [sink] _ in
            let channel = NIOAsyncTestingChannel()
            let wrapped = try await channel.eventLoop.submit {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }.get()
            sink.yield(channel)
            return wrapped
        }
    }

    /// A client configuration that dials this fake server.
    func configuration(board: BoardID? = "main") -> ClientConfiguration {
        var configuration = ClientConfiguration(
            endpoints: [.init(host: "fake", port: 1)], trust: .systemRoots, token: "t0ken", board: board)
        configuration.connector = connector
        configuration.reconnect = ReconnectPolicy(initial: .milliseconds(10), maximum: .milliseconds(50))
        configuration.paceOps = false
        return configuration
    }
}

/// One accepted connection of the fake server.
struct FakeConnection {
    let channel: NIOAsyncTestingChannel
    let coder = LineCoder()

    /// The next line the client wrote, decoded (bounded by `timeout`).
    func read(timeout: Duration = .seconds(5)) async throws -> ClientMessage {
        let channel = self.channel
        let buffer = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
            group.addTask { try await channel.waitForOutboundWrite(as: ByteBuffer.self) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw FakeTimeout()
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        var bytes = Array(buffer.readableBytesView)
        if bytes.last == 0x0A { bytes.removeLast() }
        return try coder.decodeClient(bytes)
    }

    /// Reads lines until one satisfies `match` (skipping pongs and presence), bounded.
    func expect(
        _ what: String, timeout: Duration = .seconds(5), _ match: (ClientMessage) -> Bool
    ) async throws -> ClientMessage {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let message = try await read(timeout: deadline - ContinuousClock.now)
            if match(message) { return message }
            switch message {
            case .pong, .ping, .presence: continue
            default: throw FakeUnexpected(description: "expected \(what), got \(message)")
            }
        }
        throw FakeTimeout()
    }

    /// Writes one server line to the client.
    func send(_ message: ServerMessage) async throws {
        try await channel.writeInbound(ByteBuffer(bytes: coder.encodeLine(message)))
    }

    /// Says welcome with `clientID`.
    func welcome(clientID: ClientID, user: UserID = "bob", req: RequestID? = 0) async throws {
        try await send(.welcome(ServerMessage.Welcome(
            req: req, session: "s-1", user: user, clientID: clientID, server: "fake/1", heartbeatMs: 30_000)))
    }

    /// Drops the connection.
    func close() async throws {
        try await channel.close()
    }
}

struct FakeTimeout: Error {}
struct FakeUnexpected: Error, CustomStringConvertible { var description: String }
