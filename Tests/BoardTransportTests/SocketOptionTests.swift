import BoardTransport
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The socket options both sides set, read back from the kernel, and what happens when one connection's set-up fails.
@Suite("Socket options and connection set-up", .serialized)
struct SocketOptionTests {
    /// `SO_DEBUG` at `SOL_SOCKET`: what `ChannelOptions.socketOption(.tcp_nodelay)` really sets (option 1 at the socket
    /// level). It needs `CAP_NET_ADMIN`, so setting it locked out every user but root.
    static let soDebug = ChannelOptions.Types.SocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_DEBUG))

    /// `TCP_NODELAY` and `SO_DEBUG` of a channel, as the kernel reports them.
    static func options(of channel: any Channel) async throws -> (noDelay: Int, debug: Int) {
        let noDelay = try await channel.getOption(.tcpOption(.tcp_nodelay)).get()
        let debug = try await channel.getOption(soDebug).get()
        return (noDelay, debug)
    }

    @Test("Nagle is off at the TCP level on the accepted and the client socket, and SO_DEBUG is never set")
    func noDelayAtTheTCPLevel() async throws {
        let certificate = try TestCertificate()
        // Asked by the client's first line, the server reports its side's options.
        let report: ConnectionHandler = { connection in
            let server = try await Self.options(of: connection.channel)
            try await connection.executeThenClose { inbound, outbound in
                for try await _ in inbound {
                    try await outbound.write(buffer("\(server.noDelay) \(server.debug)\n"))
                    break
                }
            }
        }
        try await withTestServer(certificate: certificate, handler: report) { port, group in
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .pinned(certificate.fingerprint)))
            let mine = try await Self.options(of: client.channel)
            #expect(mine.noDelay != 0, "the client left Nagle on")
            #expect(mine.debug == 0, "the client set SO_DEBUG")
            try await client.executeThenClose { inbound, outbound in
                try await outbound.write(buffer("options?\n"))
                var lines = inbound.makeAsyncIterator()
                let line = try await lines.next().map(text)
                #expect(line == "1 0", "the accepted socket's TCP_NODELAY and SO_DEBUG: \(line ?? "nothing")")
            }
        }
    }

    @Test("a connection whose set-up fails is closed and reported, and the listener keeps accepting")
    func oneFailedSetUpDoesNotEndTheListener() async throws {
        let certificate = try TestCertificate()
        let group = MultiThreadedEventLoopGroup.singleton
        let (failures, failed) = AsyncStream.makeStream(of: String.self)
        // The first two connections fail while being set up, as a refused setsockopt would make them fail.
        let attempts = Attempts()
        let listener = try await Transport.bindServer(
            host: "127.0.0.1", port: 0, group: group, tls: certificate.serverContext(), limits: .server,
            slowConsumerLine: buffer(slowConsumerLine),
            onChildFailure: { error in failed.yield("\(error)") },
            prepareChild: { channel in
                if attempts.next() <= 2 {
                    // An option no kernel knows: setsockopt fails with ENOPROTOOPT, for root too.
                    try channel.syncOptions?.setOption(
                        ChannelOptions.Types.SocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(9_999)),
                        value: 1)
                }
            })
        let port = try #require(listener.channel.localAddress?.port)
        try await withTimeout(30) {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    try await listener.executeThenClose { connections in
                        try await withThrowingDiscardingTaskGroup { each in
                            for try await connection in connections { each.addTask { try? await echoHandler(connection) } }
                        }
                    }
                }
                defer { tasks.cancelAll() }
                let tls = try ClientTLS(trust: .pinned(certificate.fingerprint))
                for _ in 1...2 {
                    await #expect(throws: (any Error).self) {
                        _ = try await Transport.connect(host: "127.0.0.1", port: port, group: group, tls: tls)
                    }
                }
                var reported = failures.makeAsyncIterator()
                for _ in 1...2 {
                    let failure = await reported.next()
                    #expect(failure?.contains("setsockopt") == true || failure?.contains("9999") == true, "\(failure ?? "none")")
                }
                let client = try await Transport.connect(host: "127.0.0.1", port: port, group: group, tls: tls)
                try await client.executeThenClose { inbound, _ in
                    var lines = inbound.makeAsyncIterator()
                    let greeting = try await lines.next().map(text)
                    #expect(greeting == "greeting")
                }
                #expect(listener.channel.isActive)
                listener.channel.close(promise: nil)
            }
        }
    }
}

/// Counts connection attempts across event loops.
private final class Attempts: Sendable {
    private let count = Atomic<Int>(0)
    func next() -> Int { count.add(1, ordering: .relaxed).newValue }
}
