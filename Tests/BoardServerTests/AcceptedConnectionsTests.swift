@testable import BoardServer
import NIOCore
import NIOEmbedded
import Testing

/// The door other listeners hand connections through (`AcceptedConnections`), after the server stopped serving.
@Suite struct AcceptedConnectionsTests {
    /// A web page's session that reconnects while corkd stops is handed over after the door closed: it is refused
    /// and closed (through its wrapper, `executeThenClose`, which finishes the `NIOAsyncChannel` as NIO requires).
    @Test func aConnectionHandedOverAfterTheServerStoppedIsRefusedClosedAndReleased() async throws {
        let accepted = AcceptedConnections()
        accepted.finish()
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 7)).get()
        var connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>? = try await channel.testingEventLoop.executeInContext {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
        #expect(accepted.serve(connection!, address: "127.0.0.1") == false)
        connection = nil
        // The close was started before `serve` returned, not left to a task that a busy pool may not run for
        // seconds: running the channel's loop once carries it out.
        await channel.testingEventLoop.run()
        #expect(!channel.isActive, "the refused connection is still open")
    }
    /// One handed over before the door closed, but never taken (the server stopped reading the door with it queued),
    /// is closed when the door goes, not dropped unfinished (which traps in NIO and ended corkd on SIGTERM once).
    @Test func aConnectionQueuedButNeverTakenIsClosedWhenTheDoorGoes() async throws {
        var accepted: AcceptedConnections? = AcceptedConnections()
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 7)).get()
        var connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>? = try await channel.testingEventLoop.executeInContext {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
        #expect(accepted?.serve(connection!, address: "127.0.0.1") == true)
        connection = nil
        accepted?.finish()
        accepted = nil
        await channel.testingEventLoop.run()
        #expect(!channel.isActive, "the queued connection is still open")
    }
}
