import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The plain HTTP side of the web listener: the page's files and the session cookie. Every response carries the
/// page's security headers (a Content-Security-Policy that allows only the page's own script and style, no
/// `Referer`, no framing, no content sniffing).
struct WebPages {
    let configuration: WebConfiguration
    let logger: Logger

    /// The largest request body read (`POST /session`).
    static let bodyMax = 16 * 1024

    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    struct Response {
        var status: HTTPResponseStatus
        var headers: [(String, String)] = []
        var body: ByteBuffer = ByteBuffer()
        var contentType = "application/json"

        static func json(_ status: HTTPResponseStatus, _ object: [String: String]) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
            return Response(status: status, body: ByteBuffer(bytes: data))
        }
    }

    func serve(_ http: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await http.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var body = ByteBuffer()
                var tooLarge = false
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                        body.clear()
                        tooLarge = false
                    case .body(var chunk):
                        if body.readableBytes + chunk.readableBytes > Self.bodyMax { tooLarge = true } else { body.writeBuffer(&chunk) }
                    case .end:
                        guard let request = head else {
                            // NIO hands a declined WebSocket upgrade (WebServer.refusal) to this side without its
                            // head: only its end arrives. Refuse it, and close.
                            try await write(Self.refusedUpgrade, for: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"), to: outbound)
                            return
                        }
                        let response =
                            tooLarge
                            ? .json(.payloadTooLarge, ["error": "the body is larger than \(Self.bodyMax) bytes"])
                            : await answer(request, body: body)
                        try await write(response, for: request, to: outbound)
                        if !request.isKeepAlive { return }
                        head = nil
                    }
                }
            }
        } catch {
            logger.debug("a web connection ended", metadata: ["error": "\(error)"])
        }
    }

    /// The answer to a WebSocket upgrade this listener refuses (a path it does not serve, another origin, no cookie).
    static let refusedUpgrade = Response.json(
        .forbidden, ["error": "WebSocket refused: /v1 from this page's origin (or an allowed one) or from a program; /live from this page with its session cookie"])

    func write(
        _ response: Response, for request: HTTPRequestHead, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(response.body.readableBytes)")
        for (name, value) in Self.securityHeaders where !response.headers.contains(where: { $0.0 == name }) {
            headers.add(name: name, value: value)
        }
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
        try await outbound.write(.head(HTTPResponseHead(version: request.version, status: response.status, headers: headers)))
        if request.method != .HEAD, response.body.readableBytes > 0 {
            try await outbound.write(.body(.byteBuffer(response.body)))
        }
        try await outbound.write(.end(nil))
    }

    func answer(_ request: HTTPRequestHead, body: ByteBuffer) async -> Response {
        let path = WebServer.path(of: request.uri)
        switch (request.method, path) {
        case (.GET, "/unsubscribe"), (.HEAD, "/unsubscribe"), (.POST, "/unsubscribe"):
            return await unsubscribe(request)
        case (.GET, "/session"), (.HEAD, "/session"):
            return WebServer.token(in: request, configuration.cookie) != nil
                ? .json(.ok, ["session": "ok"]) : .json(.unauthorized, ["error": "no session; open your invite link"])
        case (.POST, "/session"):
            return exchange(request, body: body)
        case (.DELETE, "/session"):
            var response = Response(status: .noContent)
            response.headers.append(("Set-Cookie", WebCookie.clearCookie(secure: WebServer.isSecure(request, configuration))))
            return response
        case (.GET, _), (.HEAD, _):
            guard let file = WebResources.file(at: path) else {
                return .json(.notFound, ["error": "no such page"])
            }
            if request.headers.first(name: "if-none-match") == file.etag {
                return Response(status: .notModified, headers: [("ETag", file.etag)], contentType: file.contentType)
            }
            return Response(
                status: .ok, headers: [("ETag", file.etag), ("Cache-Control", "no-cache")], body: ByteBuffer(bytes: file.bytes),
                contentType: file.contentType)
        default:
            return .json(.methodNotAllowed, ["error": "\(request.method) \(path) is not served here"])
        }
    }

    /// `POST /session {"token":"…"}`: the invite token for a cookie. The token itself is checked when the page's
    /// session says `hello` (a token that does not work ends that session with `unauthenticated`).
    func exchange(_ request: HTTPRequestHead, body: ByteBuffer) -> Response {
        if let origin = request.headers.first(name: "origin"),
            !WebServer.isSameOrigin(origin, host: request.headers.first(name: "host"))
        {
            return .json(.forbidden, ["error": "a session is made only by the page itself"])
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            let token = object["token"] as? String, (1...512).contains(token.utf8.count),
            token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f })
        else {
            return .json(.badRequest, ["error": "the body must be {\"token\": \"…\"} with the token of an invite link"])
        }
        guard let cookie = configuration.cookie.setCookie(token, secure: WebServer.isSecure(request, configuration)) else {
            return .json(.internalServerError, ["error": "the session could not be made; try again"])
        }
        var response = Response(status: .noContent)
        response.headers.append(("Set-Cookie", cookie))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }
}
