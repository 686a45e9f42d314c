import BoardCore
import BoardWire
import NIOCore

/// The start of every simulated connection: `hello`, then `subscribe` if asked, answering pings meanwhile.
enum Handshake {
    /// What the server said.
    struct Opened {
        /// The authenticated user.
        var user: String
        /// The per-user op rate the server advertised (`rate_ops_per_s`).
        var rateOpsPerS: Int
        /// The seq of `subscribed`, when subscribing.
        var seq: UInt64?
    }

    static let coder = LineCoder()
    static let pong = ByteBuffer(string: #"{"type":"pong"}"# + "\n")
    static let bye = ByteBuffer(bytes: coder.encodeLine(ClientMessage.bye(Bye(reason: "cork-load done"))))

    /// Says hello as `clientID` and, when `subscribe` names a board, subscribes to it.
    ///
    /// The snapshot and presence lines that come with `subscribed` are skipped unread. An `error` line throws its
    /// code; so does the end of the stream.
    static func open(
        _ target: Target, clientID: String, subscribe board: String?,
        lines: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, bytes: inout ByteCounts
    ) async throws -> Opened {
        let hello = ClientMessage.hello(
            ClientMessage.Hello(req: 1, client: "cork-load/\(ProductVersion.version)", token: target.token, clientID: ClientID(clientID)))
        try await write(coder.encodeLine(hello), outbound, &bytes)
        var opened: Opened?
        while true {
            guard let line = try await lines.next() else {
                throw LoadError("closed", "the server closed the connection during the handshake")
            }
            bytes.received += line.readableBytes + 1
            switch ServerLine(line).kind {
            case .welcome:
                guard case .welcome(let welcome) = try? coder.decodeServer(line.readableBytesView) else {
                    throw LoadError("bad_welcome", "the welcome did not decode")
                }
                let result = Opened(user: welcome.user.rawValue, rateOpsPerS: welcome.limits.rateOpsPerS)
                guard let board else { return result }
                opened = result
                let request = ClientMessage.subscribe(ClientMessage.Subscribe(req: 2, board: BoardID(board)))
                try await write(coder.encodeLine(request), outbound, &bytes)
            case .subscribed:
                guard var result = opened, let seq = ServerLine(line).seq else {
                    throw LoadError("bad_subscribed", "subscribed without a seq, or before welcome")
                }
                result.seq = seq
                return result
            case .error:
                throw error(line)
            case .ping:
                bytes.sent += pong.readableBytes
                try await outbound.write(pong)
            default:
                continue
            }
        }
    }

    /// The `error` line as a `LoadError` with its wire code.
    static func error(_ line: ByteBuffer) -> LoadError {
        guard case .error(let error) = try? coder.decodeServer(line.readableBytesView) else {
            return LoadError("bad_error", "an error line that did not decode")
        }
        return LoadError(error.code.rawValue, error.message)
    }

    private static func write(
        _ line: [UInt8], _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, _ bytes: inout ByteCounts
    ) async throws {
        bytes.sent += line.count
        try await outbound.write(ByteBuffer(bytes: line))
    }
}
