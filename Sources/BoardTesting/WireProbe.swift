import BoardTransport
import BoardWire
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A raw protocol client for tests: send lines, expect lines, each wait bounded by a timeout.
///
/// A wait that runs out closes the connection (a scheduled close on its event loop), so nothing hangs.
public final class WireProbe {
    public let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    public let timeout: TimeAmount

    private init(channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, timeout: TimeAmount) {
        self.channel = channel
        self.timeout = timeout
        self.iterator = channel.inbound.makeAsyncIterator()
    }

    /// Connects over TLS, pinning `fingerprint`.
    public static func connect(port: Int, fingerprint: Fingerprint, timeout: TimeAmount = .seconds(10)) async throws -> WireProbe {
        let tls = try ClientTLS(trust: .pinned(fingerprint))
        // A minute, as the test server's own handshake deadline (`withTestServer`): the suite's thousand tests
        // share two cores, and with one more busy process beside it handshakes took longer than the client's 5 s.
        var limits = TransportLimits.client
        limits.handshakeTimeout = .seconds(60)
        let channel = try await Transport.connect(
            host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton, tls: tls,
            serverHostname: "localhost", limits: limits)
        return WireProbe(channel: channel, timeout: timeout)
    }

    /// Sends one line (a `\n` is added).
    public func send(_ line: String) async throws {
        try await channel.channel.writeAndFlush(ByteBuffer(string: line + "\n"))
    }

    /// Sends raw bytes as they are.
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await channel.channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// The next line, or nil when the connection closed; throws when the timeout closed it.
    public func next() async throws -> String? {
        let channel = self.channel.channel
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { timer.cancel() }
        let started = ContinuousClock.now
        let limit = Duration.nanoseconds(timeout.nanoseconds)
        let line: ByteBuffer?
        do {
            line = try await iterator.next()
        } catch {
            if ContinuousClock.now - started >= limit { throw TestFailure("no line within \(limit)") }
            return nil
        }
        if line == nil, ContinuousClock.now - started >= limit { throw TestFailure("no line within \(limit)") }
        return line.map { String(buffer: $0) }
    }

    /// The next line as a JSON object.
    public func nextObject() async throws -> [String: Any]? {
        guard let line = try await next() else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(line)")
        }
        return object
    }

    /// Reads lines until one has `type`, skipping presence and pings; fails on anything else or on close.
    public func expect(type: String, skipping: Set<String> = ["presence", "presence.state", "presence.left", "ping"]) async throws -> [String: Any] {
        while true {
            guard let object = try await nextObject() else { throw TestFailure("closed while waiting for \(type)") }
            let got = object["type"] as? String ?? ""
            if got == type { return object }
            if !skipping.contains(got) { throw TestFailure("expected \(type), got \(object)") }
        }
    }

    /// Waits until the server closes the connection, returning the lines it sent before.
    public func expectClose() async throws -> [String] {
        var seen: [String] = []
        while let line = try await next() { seen.append(line) }
        return seen
    }

    /// Closes the connection.
    public func close() async {
        channel.outbound.finish()
        try? await channel.channel.close()
    }

    deinit {
        // NIO requires the writer to be finished; a test that forgot `close()` must not crash the run.
        channel.outbound.finish()
        channel.channel.close(promise: nil)
    }
}
