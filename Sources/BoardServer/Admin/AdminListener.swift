import BoardTransport
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small plain-HTTP listener for operators: `GET /metrics` (Prometheus text) and `GET /health` (200 while the node
/// serves, 503 otherwise). One request per connection (`Connection: close`), each connection its own child task.
///
/// It never takes the server down: a malformed request gets `400` from NIO's HTTP error handler and is closed; a
/// connection that sends nothing, or too slowly, is closed after ``requestDeadline``; a failed write or a reset
/// only ends that connection; at most ``connectionsMax`` connections are served at once (more wait in the
/// backlog); a failing accept ends this listener with an error in the log, never the board server.
struct AdminListener: Sendable {
    /// What a listener answers.
    enum Role: String, Sendable {
        /// `/metrics` and `/health` (bound to loopback unless the operator says otherwise).
        case metrics
        /// `/health` and `/` only: safe to expose to a load balancer on another machine.
        case health
    }

    /// How long a connection may take to send its request.
    static let requestDeadline: TimeAmount = .seconds(5)
    /// Request body bytes read before answering 413 (a GET has none).
    static let bodyBytesMax = 8 * 1024
    /// Connections served at once.
    static let connectionsMax = 64

    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let role: Role
    let channel: NIOAsyncChannel<Connection, Never>
    /// Closes the listener without dropping a connection it accepted (``BoardTransport/ListenerDrain``).
    let drain: ListenerDrain
    let answer: @Sendable (Role, HTTPRequestHead) async -> Response
    let logger: Logger

    /// An HTTP answer.
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var contentType = "text/plain; charset=utf-8"
        var body: String
    }

    /// Binds `address`; throws when it cannot.
    static func bind(
        _ role: Role, at address: AdminAddress, group: any EventLoopGroup, logger: Logger,
        answer: @escaping @Sendable (Role, HTTPRequestHead) async -> Response
    ) async throws -> AdminListener {
        let drain = ListenerDrain()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelInitializer { listener in drain.watchListener(listener) }
            .bind(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    do {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        return try Connection(wrappingChannelSynchronously: channel)
                    } catch {
                        drain.failed()
                        channel.close(promise: nil)
                        throw error
                    }
                }
            }
        return AdminListener(role: role, channel: channel, drain: drain, answer: answer, logger: logger)
    }

    /// The bound address.
    var localAddress: SocketAddress? { channel.channel.localAddress }

    /// Stops accepting; ``run()`` returns once the connections being served have ended.
    func close() {
        let (listener, drain) = (channel.channel, drain)
        Task { await drain.close(listener) }
    }

    /// Accepts and serves until ``close()``.
    func run() async {
        do {
            try await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { connections in
                    var open = 0
                    var finished = 0
                    let (ended, endedContinuation) = AsyncStream.makeStream(of: Void.self)
                    var endedIterator = ended.makeAsyncIterator()
                    for try await connection in inbound {
                        drain.taken()
                        // Count the connections that ended since the last accept (no lock: a stream of ends).
                        while open - finished >= Self.connectionsMax, await endedIterator.next() != nil { finished += 1 }
                        open += 1
                        connections.addTask {
                            await serve(connection)
                            endedContinuation.yield()
                        }
                    }
                    endedContinuation.finish()
                }
            }
        } catch {
            logger.error("the \(role.rawValue) listener stopped accepting", metadata: ["error": "\(error)"])
        }
    }

    /// Reads one request, answers it, closes. Never throws.
    private func serve(_ connection: Connection) async {
        let channel = connection.channel
        let deadline = channel.eventLoop.scheduleTask(in: Self.requestDeadline) { channel.close(promise: nil) }
        defer { deadline.cancel() }
        do {
            try await connection.executeThenClose { inbound, _ in
                var head: HTTPRequestHead?
                var bodyBytes = 0
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        head = received
                    case .body(let bytes):
                        bodyBytes += bytes.readableBytes
                        if bodyBytes > Self.bodyBytesMax {
                            try await write(Response(status: .payloadTooLarge, body: "request body too large\n"), on: channel, head: nil)
                            return
                        }
                    case .end:
                        guard let head else { return }
                        try await write(await respond(to: head), on: channel, head: head)
                        return
                    }
                }
            }
        } catch {
            logger.debug("an admin connection ended", metadata: ["error": "\(error)"])
        }
    }

    private func respond(to head: HTTPRequestHead) async -> Response {
        guard head.method == .GET || head.method == .HEAD else {
            return Response(status: .methodNotAllowed, body: "only GET\n")
        }
        return await answer(role, head)
    }

    private func write(_ response: Response, on channel: any Channel, head request: HTTPRequestHead?) async throws {
        var headers = HTTPHeaders()
        let body = ByteBuffer(string: response.body)
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        let responseHead = HTTPResponseHead(version: request?.version ?? .http1_1, status: response.status, headers: headers)
        channel.write(HTTPServerResponsePart.head(responseHead), promise: nil)
        if request?.method != .HEAD { channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil) }
        try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
    }
}
