import BoardCore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Everything a ``BoardClient`` needs: where to connect, how to trust the server, who it is, and its bounds.
///
/// A `Sendable` value with a documented default for every field (STYLE.md 9); only executables read argv and the
/// environment to fill it.
public struct ClientConfiguration: Sendable {
    /// One server address.
    public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
        /// Host name or IP literal.
        public var host: String
        /// TCP port.
        public var port: Int

        /// An address.
        public init(host: String, port: Int = InviteURL.defaultPort) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The servers to try, in order; the client moves to the next one when one is down.
    public var endpoints: [Endpoint]
    /// How the server's certificate is checked: pinned by fingerprint (the invite URL's `fp`), or a CA chain plus
    /// the host name. There is no unverified mode.
    public var trust: ServerTrust
    /// The host name for SNI and CA verification; default: the endpoint's host (IP literals send no SNI).
    public var serverHostname: String?
    /// The secret for `hello` (never logged).
    public var token: String
    /// The board to subscribe to; nil connects without a board (list boards, create one).
    public var board: BoardID?
    /// Whether this client is present on the board (others see it join, leave and what it does). One-shot commands
    /// and scripts set it to false: they subscribe with `"presence":false` and never appear in anyone's presence.
    /// Default true.
    public var announcesPresence = true
    /// The `client` string of `hello`: software name and version.
    public var clientName: String = "cork/\(ProductVersion.version)"
    /// A file that keeps the client id, the mutation counter and the unfinished ops, so a restarted process resends
    /// them with their original mutation ids and nothing is lost or doubled. Nil: nothing is kept (a new client id
    /// per process).
    public var journal: URL?
    /// Backoff between connection attempts.
    public var reconnect = ReconnectPolicy()
    /// How long a dial plus TLS handshake may take.
    public var connectTimeout: Duration = .seconds(10)
    /// Whether ops are paced to the server's advertised rate (`rate_ops_per_s`, `rate_burst`) so bursts are not
    /// rejected; a `rate_limited` reject is retried either way.
    public var paceOps = true
    /// How many times an op rejected with a retryable code (`rate_limited`, `storage_busy`) is sent again (with a
    /// new mutation id) before the reject is reported.
    public var retryRejected = 5
    /// Confirmed boards shared with other clients of this process (``SharedBoards``): a server holding a client per
    /// browser tab keeps one copy of each board. Nil (the default): the client keeps its own.
    public var sharedBoards: SharedBoards?
    /// Whether the client keeps everyone's presence on its board (``BoardClient/presence``). An owner that keeps
    /// its own list from the presence events sets it to false: a server with a client per browser tab would
    /// otherwise keep every tab's list in every tab's client, N² entries. Default true.
    public var keepsPresence = true
    /// The event loops for connections.
    public var eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// Opens the connection to an endpoint. Nil (the default): TLS over TCP with ``trust`` (`Transport.connect`).
    /// Tests put a fake server here (an `NIOAsyncTestingChannel` wrapped as an `NIOAsyncChannel`).
    public var connector: Connector?
    /// Opens a line channel to an endpoint.
    public typealias Connector = @Sendable (Endpoint) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer>
    /// Where the client logs (trace and debug only; the application chooses the handler).
    public var logger = Logger(label: "corkboard.client")

    /// A configuration for `endpoints`.
    public init(endpoints: [Endpoint], trust: ServerTrust, token: String, board: BoardID?) {
        self.endpoints = endpoints
        self.trust = trust
        self.token = token
        self.board = board
    }

    /// A configuration from an invite URL: its host and port, its token and board, and its `fp` pinned (or CA
    /// verification when it has none). More endpoints for the same server can be appended to ``endpoints``.
    public init(invite: InviteURL) throws(ClientError) {
        let trust: ServerTrust
        if let fp = invite.fingerprint {
            guard let pin = Fingerprint(fp) else {
                throw ClientError(.invalidArgument, "the invite URL's fp is not a sha256 fingerprint")
            }
            trust = .pinned(pin)
        } else {
            trust = .systemRoots
        }
        self.init(
            endpoints: [Endpoint(host: invite.host, port: invite.port)], trust: trust, token: invite.token,
            board: invite.board)
    }
}
