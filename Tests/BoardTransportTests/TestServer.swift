import BoardTransport
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// A connection's line channel.
typealias Lines = NIOAsyncChannel<ByteBuffer, ByteBuffer>

/// What the test server does with each accepted connection.
typealias ConnectionHandler = @Sendable (Lines) async throws -> Void

/// The slow-consumer line the test servers send.
let slowConsumerLine =
    #"{"type":"error","code":"slow_consumer","message":"you fell behind; resume from your seq","retryable":true,"close":true}"#

/// Greets with `greeting`, then answers every line with `echo:<line>`.
let echoHandler: ConnectionHandler = { connection in
    try await connection.executeThenClose { inbound, outbound in
        try await outbound.write(buffer("greeting\n"))
        for try await line in inbound {
            try await outbound.write(buffer("echo:" + text(line) + "\n"))
        }
    }
}

/// Runs a TLS server on 127.0.0.1 port 0 with the real pipeline, calls `body` with its port and an event loop group
/// for clients, then stops everything: connection tasks are cancelled, the listener closed, the group shut down.
/// The whole run is bounded by `timeout` seconds.
func withTestServer<T: Sendable>(
    certificate: TestCertificate,
    limits: TransportLimits = .server,
    timeout: Double = 30,
    handler: @escaping ConnectionHandler = echoHandler,
    _ body: @escaping @Sendable (_ port: Int, _ group: any EventLoopGroup) async throws -> T
) async throws -> T {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    do {
        let result = try await withTimeout(timeout) {
            try await runServer(group: group, certificate: certificate, limits: limits, handler: handler, body)
        }
        try await group.shutdownGracefully()
        return result
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
}

private func runServer<T: Sendable>(
    group: any EventLoopGroup, certificate: TestCertificate, limits: TransportLimits,
    handler: @escaping ConnectionHandler,
    _ body: @escaping @Sendable (_ port: Int, _ group: any EventLoopGroup) async throws -> T
) async throws -> T {
    let server = try await Transport.bindServer(
        host: "127.0.0.1", port: 0, group: group, tls: certificate.serverContext(), limits: limits,
        slowConsumerLine: buffer(slowConsumerLine))
    let port = try #require(server.channel.localAddress?.port)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            try await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { perConnection in
                    for try await connection in connections {
                        perConnection.addTask { try? await handler(connection) }
                    }
                }
            }
        }
        defer { tasks.cancelAll() }
        return try await body(port, group)
    }
}

/// A client connected over raw TCP, without TLS.
func connectPlain(port: Int, group: any EventLoopGroup) async throws -> any Channel {
    try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
}

