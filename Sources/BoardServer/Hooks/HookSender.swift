import AsyncHTTPClient
import BoardTransport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// POSTs one delivery (async-http-client): to the address ``HookTarget`` checked, redirects never followed, bounded
/// by `HookSettings.requestTimeout`, at most 64 KiB of the answer read. A 2xx answer is a delivery; anything else
/// (another status, a refused target, a timeout, a connection error) is a failure with a reason for `last_error`.
enum HookSender {
    /// How one attempt ended.
    enum Outcome: Hashable, Sendable {
        /// The receiver answered 2xx.
        case delivered(status: Int)
        /// It did not: its status when it answered, and why.
        case failed(status: Int?, reason: String)
    }

    /// Sends `payload` to the hook's URL.
    static func send(_ payload: HookPayload, to url: String, settings: HookSettings) async -> Outcome {
        let target: HookTarget
        switch HookTarget.parse(url, settings) {
        case .success(let parsed): target = parsed
        case .failure(let problem): return .failed(status: nil, reason: "refused: \(problem.message)")
        }
        let address: SocketAddress
        switch await target.resolve(settings) {
        case .success(let resolved): address = resolved
        case .failure(let problem): return .failed(status: nil, reason: "refused: \(problem.message)")
        }
        let timeout = TimeAmount.milliseconds(settings.requestTimeout.wholeMilliseconds)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout))
        configuration.connectionPool = .init(idleTimeout: .seconds(1))
        // A receiver that refuses the connection fails the attempt at once: the hook's queue retries with its own
        // backoff, and the client's retries until the connect timeout made a refused connection take the whole
        // request timeout (10 s by default) for each attempt and each `cork hook test`.
        configuration.connectionPool.retryConnectionEstablishment = false
        // Connect to exactly the address that was checked (no second lookup a rebinding name could answer
        // differently); TLS still verifies the certificate for the host name.
        if let ip = address.ipAddress, ip != target.host { configuration.dnsOverride = [target.host: ip] }
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let outcome = await post(payload, url: url, client: client, timeout: timeout)
        try? await client.shutdown()
        return outcome
    }

    private static func post(_ payload: HookPayload, url: String, client: HTTPClient, timeout: TimeAmount) async -> Outcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in payload.headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: payload.body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            let status = Int(response.status.code)
            // The answer's body is not used; read a little of it so the connection ends cleanly.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            if (200..<300).contains(status) { return .delivered(status: status) }
            if (300..<400).contains(status) {
                return .failed(status: status, reason: "HTTP \(status) (redirects are not followed)")
            }
            return .failed(status: status, reason: "HTTP \(status)")
        } catch {
            return .failed(status: nil, reason: Self.words(error))
        }
    }

    /// Why an attempt failed, in words for `last_error`: a refused or timed-out connection as `cork` words it, not
    /// NIO's or async-http-client's own descriptions (`connection reset (error set): …`, `HTTPClientError.…`).
    static func words(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return "timed out connecting"
            case .readTimeout, .deadlineExceeded: return "no answer within the time allowed"
            case .remoteConnectionClosed: return "the receiver closed the connection before answering"
            default: return "\(client)".prefix(200).description
            }
        }
        return ConnectionWords.dialFailure(error, listener: "the receiver").prefix(200).description
    }
}
