import BoardTransport
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A listener closed while connections arrive: every connection it accepted reaches the accept loop (an
/// `NIOAsyncChannel` that NIO drops unfinished traps the whole process).
@Suite("Closing a listener while connections arrive")
struct ListenerDrainTests {
    /// A listener on a two-loop group (its connections alternate between the listener's loop and the other one,
    /// where their set-up hops across), closed after a short random time while a client connects as fast as it can.
    /// A dropped connection ends the test process; every accepted one must have been served.
    @Test func everyAcceptedConnectionReachesTheAcceptLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        var accepted = 0
        defer { Task { try? await group.shutdownGracefully() } }
        for _ in 0..<20 {
            let drain = ListenerDrain()
            let listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelInitializer { channel in drain.watchListener(channel) }
                .bind(host: "127.0.0.1", port: 0) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            let port = try #require(listener.channel.localAddress?.port)
            let stop = Shared()
            // Plain blocking connects from a thread of their own: as many as the loopback takes.
            let dialer = Thread { ListenerDrainTests.dial(port: port, until: stop) }
            dialer.start()
            let served = Shared()
            try await withThrowingDiscardingTaskGroup { tasks in
                tasks.addTask {
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            drain.taken()
                            served.count.add(1, ordering: .relaxed)
                            try? await connection.executeThenClose { _, _ in }
                        }
                    }
                }
                try await Task.sleep(for: .microseconds(Int.random(in: 200...3_000)))
                await drain.close(listener.channel, limit: .seconds(10))
            }
            stop.stopped.store(true, ordering: .relaxed)
            while !dialer.isFinished { try await Task.sleep(for: .milliseconds(1)) }
            accepted += served.count.load(ordering: .relaxed)
        }
        #expect(accepted > 0, "no connection was accepted in any round: the race was never run")
    }

    final class Shared: Sendable {
        let stopped = Atomic<Bool>(false)
        let count = Atomic<Int>(0)
    }

    /// Opens and closes loopback connections to `port` until `stop`.
    static func dial(port: Int, until stop: Shared) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        while !stop.stopped.load(ordering: .relaxed) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return }
            // A full backlog (the listener stopped accepting) would hold a blocking connect for a second or more.
            var timeout = timeval(tv_sec: 0, tv_usec: 20_000)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
        }
    }
}
