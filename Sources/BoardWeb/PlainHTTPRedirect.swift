import NIOCore

/// The first handler of an HTTPS web listener: a connection that opens with plain HTTP (`http://` typed for a port
/// that speaks HTTPS, as browsers do when no scheme is given) is answered with a redirect to `https://` and closed,
/// instead of a TLS failure the browser shows as an empty reply. A connection that opens with a TLS record goes on
/// to TLS unchanged, and this handler leaves the pipeline.
final class PlainHTTPRedirect: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A TLS record of type handshake: how every TLS connection begins.
    static let tlsHandshake: UInt8 = 0x16

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self), first != Self.tlsHandshake else {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        answered = true
        let response = ByteBuffer(string: Self.response(to: String(buffer: bytes)))
        context.writeAndFlush(wrapOutboundOut(response)).whenComplete { _ in context.close(promise: nil) }
    }

    /// The answer to a plain HTTP request: a permanent redirect to the same host and path over HTTPS when the
    /// request names its host, else a 400 that says to use `https://`.
    static func response(to request: String) -> String {
        let lines = request.split(separator: "\r\n", omittingEmptySubsequences: false)
        let target = lines.first.flatMap { line -> String? in
            let parts = line.split(separator: " ")
            return parts.count >= 2 && parts[1].hasPrefix("/") ? String(parts[1]) : nil
        }
        let host = lines.dropFirst().first { $0.lowercased().hasPrefix("host:") }.map {
            $0.dropFirst("host:".count).trimmingCharacters(in: .whitespaces)
        }
        if let host, !host.isEmpty, host.allSatisfy({ $0.isASCII && !$0.isWhitespace }), let target {
            let location = "https://\(host)\(target)"
            let body = "This page is served over HTTPS: \(location)\n"
            return "HTTP/1.1 301 Moved Permanently\r\nLocation: \(location)\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        }
        let body = "This port serves corkd's web page over HTTPS: open it with https://\n"
        return "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }
}

@available(*, unavailable)
extension PlainHTTPRedirect: Sendable {}
