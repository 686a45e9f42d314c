import BoardTransport
import BoardWire
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A raw protocol client for tests: send lines, expect lines, each wait bounded by a timeout.
///
/// A wait that runs out closes the connection (a scheduled close on its event loop), so nothing hangs; it fails
/// with what it waited for, and so does every later use of the probe (not NIO's bare "I/O on closed channel").
/// The default bound is a minute: the suite runs on two cores beside other servers, and a bound is there to end a
/// hang, not to judge speed.
public final class WireProbe {
    public let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    public let timeout: TimeAmount
    /// Why this probe closed its own connection, once a wait ran out.
    private var timedOut: String?
    /// The last lines read, for failure messages.
    private var recent: [String] = []

    private init(channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, timeout: TimeAmount) {
        self.channel = channel
        self.timeout = timeout
        self.iterator = channel.inbound.makeAsyncIterator()
    }

    /// Connects over TLS, pinning `fingerprint`.
    public static func connect(port: Int, fingerprint: Fingerprint, timeout: TimeAmount = .seconds(60)) async throws -> WireProbe {
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
        try await write(ByteBuffer(string: line + "\n"), what: "the line \(line.prefix(120))")
    }

    /// Sends raw bytes as they are.
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await write(ByteBuffer(bytes: bytes), what: "\(bytes.count) raw bytes")
    }

    private func write(_ buffer: ByteBuffer, what: String) async throws {
        if let timedOut { throw TestFailure("cannot send \(what): \(timedOut)") }
        do {
            try await channel.channel.writeAndFlush(buffer)
        } catch {
            throw TestFailure("sending \(what) failed (\(error)); the connection was closed by the server. \(lastLines)")
        }
    }

    /// The last lines read, as a sentence for a failure message.
    public var lastLines: String {
        recent.isEmpty ? "No line was read before." : "The last lines read: \(recent.map { String($0.prefix(300)) })"
    }

    /// The next line, or nil when the connection closed; throws when the timeout closed it.
    public func next() async throws -> String? {
        if let timedOut { throw TestFailure(timedOut) }
        let channel = self.channel.channel
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { timer.cancel() }
        let started = ContinuousClock.now
        let limit = Duration.nanoseconds(timeout.nanoseconds)
        let line: ByteBuffer?
        do {
            line = try await iterator.next()
        } catch {
            if ContinuousClock.now - started >= limit { throw timeOut(limit) }
            return nil
        }
        if line == nil, ContinuousClock.now - started >= limit { throw timeOut(limit) }
        guard let line else { return nil }
        let text = String(buffer: line)
        recent.append(text)
        if recent.count > 3 { recent.removeFirst() }
        return text
    }

    private func timeOut(_ limit: Duration) -> TestFailure {
        let why = "no line arrived within \(limit), so the probe closed its connection. \(lastLines)"
        timedOut = why
        return TestFailure(why)
    }

    /// The next line as a JSON object.
    public func nextObject() async throws -> [String: Any]? {
        guard let line = try await next() else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(line)")
        }
        return object
    }

    /// What the server sends a user's sessions whenever their inbox changes, on any board: skipped by every `expect`
    /// for another type, as a client ignores what it does not wait for.
    public static let inboxPushes: Set<String> = ["inbox.entry", "inbox.read"]

    /// Reads lines until one has `type`, skipping presence, pings and inbox pushes; fails on anything else or on
    /// close.
    public func expect(type: String, skipping: Set<String> = ["presence", "presence.state", "presence.left", "ping"]) async throws -> [String: Any] {
        while true {
            let object: [String: Any]?
            do { object = try await nextObject() } catch { throw TestFailure("waiting for a \(type) line: \(error)") }
            guard let object else { throw TestFailure("the server closed the connection while this waited for a \(type) line. \(lastLines)") }
            let got = object["type"] as? String ?? ""
            if got == type { return object }
            if !skipping.contains(got) && !WireProbe.inboxPushes.contains(got) {
                throw TestFailure("expected a \(type) line, got \(object)")
            }
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
