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
        let deadline = ContinuousClock.now + .seconds(10)
        while channel.isActive, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!channel.isActive, "the refused connection is still open")
    }
}
