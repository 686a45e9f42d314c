import BoardTransport
import Foundation
import NIOCore
import NIOPosix
import NIOWebSocket
import NIOConcurrencyHelpers

/// A WebSocket to the web listener, read one JSON message at a time, every wait bounded.
public final class WebPageProbe {
    /// A frame, or a tick that wakes a reader whose deadline may have passed.
    typealias Item = WebSocketFrame?
    let items: AsyncStream<Item>.Continuation
    var iterator: AsyncStream<Item>.Iterator
    let outgoing: AsyncStream<WebSocketFrame>.Continuation
    let task: Task<Void, Never>
    /// The last messages read (for a failure's message).
    var recent: [String] = []
    /// Why the inbound stream ended, if it failed.
    let ending = NIOLockedValueBox<String?>(nil)

    public init(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) {
        let (stream, sink) = AsyncStream.makeStream(of: Item.self)
        let ending = self.ending
        let (toSend, sender) = AsyncStream.makeStream(of: WebSocketFrame.self)
        items = sink
        iterator = stream.makeAsyncIterator()
        outgoing = sender
        task = Task {
            try? await channel.executeThenClose { inbound, outbound in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do { for try await frame in inbound { sink.yield(frame) } } catch { ending.withLockedValue { $0 = "\(error)" } }
                        sink.finish()
                    }
                    group.addTask {
                        for await frame in toSend { try? await outbound.write(frame) }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
            sink.finish()
        }
    }

    public static func open(port: Int, path: String, headers: [(String, String)] = []) async throws -> WebPageProbe {
        WebPageProbe(
            try await Transport.connectWebSocket(
                host: "127.0.0.1", port: port, path: path, headers: headers, group: MultiThreadedEventLoopGroup.singleton))
    }

    /// A page's `/live` channel: the token traded for a cookie first, as the page does.
    public static func live(port: Int, token: String) async throws -> WebPageProbe {
        let body = #"{"token":"\#(token)"}"#
        let answer = try await HTTPProbe.exchange(
            "POST /session HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
            port: port)
        guard let cookie = cookie(in: answer) else { throw TestFailure("POST /session gave no cookie: \(answer.prefix(300))") }
        return try await open(port: port, path: "/live", headers: [("Origin", "http://127.0.0.1:\(port)"), ("Cookie", cookie)])
    }

    public func send(_ text: String) async throws {
        // The encoder masks the data with the key.
        outgoing.yield(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
    }

    /// The next text message that `matches`, skipping others; fails after `timeout`.
    public func next(where matches: ([String: Any]) -> Bool, timeout: Duration = .seconds(20)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while let frame = await nextFrame(until: deadline) {
            guard frame.opcode == .text else {
                if frame.opcode == .connectionClose { throw TestFailure("the server closed the WebSocket") }
                continue
            }
            let data = Data(frame.unmaskedData.readableBytesView)
            recent = Array((recent + [String(decoding: data.prefix(300), as: UTF8.self)]).suffix(8))
            if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], matches(object) { return object }
        }
        throw TestFailure("no matching message within \(timeout); the last ones:\n\(recent.joined(separator: "\n"))")
    }

    /// The `name=value` of the first `Set-Cookie` in an HTTP response.
    public static func cookie(in response: String) -> String? {
        for line in response.split(separator: "\r\n") where line.lowercased().hasPrefix("set-cookie:") {
            let value = line.dropFirst("set-cookie:".count).trimmingCharacters(in: .whitespaces)
            return value.split(separator: ";").first.map(String.init)
        }
        return nil
    }

    /// The code of the server's close frame; fails when the connection ends without one.
    public func closeCode(timeout: Duration = .seconds(20)) async throws -> WebSocketErrorCode? {
        let deadline = ContinuousClock.now + timeout
        var seen: [String] = []
        while let frame = await nextFrame(until: deadline) {
            if frame.opcode == .connectionClose {
                var data = frame.unmaskedData
                return data.readWebSocketErrorCode()
            }
            seen.append("\(frame.opcode)")
        }
        throw TestFailure("no close frame; frames \(seen), the stream ended with \(ending.withLockedValue { $0 } ?? "no error")")
    }

    /// The next frame, or nil once the deadline has passed or the connection ended.
    private func nextFrame(until deadline: ContinuousClock.Instant) async -> WebSocketFrame? {
        let items = self.items
        let tick = Task {
            try? await Task.sleep(until: deadline)
            items.yield(nil)
        }
        defer { tick.cancel() }
        while true {
            guard let item = await iterator.next() else { return nil }
            if let frame = item { return frame }
            if ContinuousClock.now >= deadline { return nil }
        }
    }

    public func close() async {
        outgoing.finish()
        task.cancel()
        await task.value
    }
}
