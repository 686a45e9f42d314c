import NIOCore
import NIOPosix

/// A raw HTTP/1.1 exchange over loopback TCP for the admin listener's tests (metrics, health): sends bytes, reads
/// until the server closes, bounded by a timeout.
public enum HTTPProbe {
    /// A response's status code and body.
    public struct Reply: Sendable {
        public var status: Int
        public var body: String
    }

    /// `GET path` on 127.0.0.1:port.
    public static func get(_ path: String, port: Int, method: String = "GET") async throws -> Reply {
        let text = try await exchange("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
        do { return try parse(text) } catch { throw TestFailure("\(method) \(path) on 127.0.0.1:\(port): \(error)") }
    }

    /// Sends `request` as it is and returns everything the server wrote before closing; fails when the server has
    /// not closed within `timeout` (a bound for a hang, generous on a loaded machine).
    public static func exchange(_ request: String, port: Int, timeout: Duration = .seconds(60)) async throws -> String {
        let started = ContinuousClock.now
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let deadline = channel.channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.components.seconds * 1_000_000_000)) {
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            if !request.isEmpty { try await outbound.write(ByteBuffer(string: request)) }
            var received = ""
            for try await chunk in inbound { received += String(buffer: chunk) }
            if ContinuousClock.now - started >= timeout {
                throw TestFailure("the server did not answer and close within \(timeout); it sent \(received.count) bytes: \(received.prefix(200))")
            }
            return received
        }
    }

    /// Splits a response into its status code and body.
    public static func parse(_ text: String) throws -> Reply {
        guard let firstLine = text.split(separator: "\r\n").first, firstLine.hasPrefix("HTTP/1."),
            let status = Int(firstLine.split(separator: " ").dropFirst().first ?? "")
        else { throw HTTPProbeError(text: text) }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return Reply(status: status, body: body)
    }

    /// A reply that is not HTTP.
    public struct HTTPProbeError: Error, CustomStringConvertible {
        public var text: String
        public var description: String {
            text.isEmpty ? "the server closed the connection without an answer" : "not an HTTP reply: \(text.prefix(200))"
        }
    }
}
